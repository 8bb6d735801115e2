import { LIMITS } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { compileFilter } from "@argus/filter";
import { clampLimit, fetchSize, pageOf, publicIdSql, type CallContext } from "@argus/platform";
import { confirmListed, listableSpaces } from "@argus/spaces";
import type { PageRequest } from "@argus/proto/common/v1";
import type {
  Experiment,
  GetExperimentRequest,
  ListExperimentRunsRequest,
  ListExperimentRunsResponse,
  ListExperimentsRequest,
  ListExperimentsResponse,
  SearchExperimentRunsRequest,
} from "@argus/proto/dataset/v1/dataset";
import { loadDataset } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { cutPage } from "../shared/cutPage.ts";
import { fieldColumns } from "../shared/filterColumns.ts";
import { invalid } from "../shared/problemRules.ts";
import {
  EXPERIMENT_COLUMNS,
  loadExperiment,
  runPage,
  toExperiment,
  toRun,
  type ExperimentRow,
  type RunRow,
} from "./experimentRows.ts";

/**
 * What a run search may name: `id`, `example_id` (public ids, as the gateway encodes them),
 * `output`, and any of the run's other fields (`eval.correct.score`, `metadata.topic`).
 */
const runColumns = fieldColumns("r.fields", {
  // encodeId(type, id): standard base64 on one line (under 57 bytes → no line breaks).
  id: `to_jsonb(${publicIdSql("ExperimentRun", "r.id")})`,
  example_id: `case when r.example_id is null then 'null'::jsonb else to_jsonb(${publicIdSql("DatasetExample", "r.example_id")}) end`,
  output: "to_jsonb(r.output)",
});

export function experimentQueries(deps: DatasetDeps) {
  const { pool, spaces } = deps;

  async function runs(
    ctx: CallContext,
    req: { experimentId: string; page?: PageRequest | undefined },
    filter?: string,
  ): Promise<ListExperimentRunsResponse> {
    const row = await loadExperiment(deps, ctx, req.experimentId, "EXPERIMENT_RUN_READ");
    const compiled = filter ? compileFilter(filter, runColumns, 4) : undefined;
    const fetch = clampLimit(req.page?.limit, LIMITS.EXAMPLES_PAGE_MAX) + 1;
    const rows = await runPage(pool, row.id, req.page?.after ?? "", fetch, compiled);
    const { items, nextAfter } = cutPage<RunRow>(
      rows,
      req.page,
      (r) => r.fields_json.length + r.output.length,
    );
    return { runs: items.map(toRun), page: { nextAfter } };
  }

  return {
    async getExperiment(req: GetExperimentRequest, ctx: CallContext): Promise<Experiment> {
      return toExperiment(await loadExperiment(deps, ctx, req.id));
    },

    /** Spec 12: by dataset, or by space, or every experiment of every readable space. */
    async listExperiments(
      req: ListExperimentsRequest,
      ctx: CallContext,
    ): Promise<ListExperimentsResponse> {
      if (req.datasetId && req.spaceId) throw invalid("give dataset_id or space_id, not both");
      // A dataset the caller cannot see is a 404, as its own GET would be.
      const dataset = req.datasetId ? await loadDataset(deps, ctx, req.datasetId) : undefined;
      const readable = await listableSpaces(
        spaces,
        ctx,
        { spaceId: req.spaceId, spaceName: "" },
        "EXPERIMENT_READ",
        "t.space_id",
        6,
      );
      const res = await tracedQuery<ExperimentRow>(
        pool,
        "list experiments",
        `select ${EXPERIMENT_COLUMNS} from experiments t
          where account_id = $1
            and ($2::uuid is null or dataset_id = $2)
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::uuid is null or id < $4)
            and ${readable.sql}
          order by id desc
          limit $5`,
        [
          ctx.principal.accountId,
          dataset?.id ?? null,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          ...readable.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "EXPERIMENT_READ", (r) => ({
        spaceId: r.space_id,
      }));
      return { experiments: confirmed.map(toExperiment), page: { nextAfter } };
    },

    listExperimentRuns: (req: ListExperimentRunsRequest, ctx: CallContext) => runs(ctx, req),
    searchExperimentRuns: (req: SearchExperimentRunsRequest, ctx: CallContext) =>
      runs(ctx, req, req.filter),
  };
}
