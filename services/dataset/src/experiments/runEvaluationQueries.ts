import { tracedQuery } from "@argus/eventstore";
import { LIMITS } from "@argus/contracts";
import { compileFilter } from "@argus/filter";
import { clampLimit, fetchSize, notFound } from "@argus/platform";
import type {
  ExamplesToRunRequest,
  ExamplesToRunResponse,
  RunsToEvaluateRequest,
  RunsToEvaluateResponse,
} from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { datasetInAccount, findVersion } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { exampleColumns } from "../examples/exampleQueries.ts";
import { examplePage } from "../examples/exampleRows.ts";
import { cutPage } from "../shared/cutPage.ts";

/**
 * Runs a page may hold (a task's worker reads them in batches): as many as examples, since a
 * page is cut as theirs are (cutPage), short once its runs' text passes the byte budget.
 */
const RUNS_PAGE_MAX = LIMITS.EXAMPLES_PAGE_MAX;

/**
 * The task runner's reads of experiment runs and dataset examples (RunEvaluationDirectory), on
 * its own behalf, for the account of the task (see runEvaluationCommands.ts for its writes).
 */
export function runEvaluationQueries(deps: DatasetDeps) {
  return {
    /**
     * A page of the experiment's runs with their examples' fields, in one statement with the
     * experiment's own row (none: not in the account, 404; one with no run: an empty page).
     */
    async runsToEvaluate(req: RunsToEvaluateRequest): Promise<RunsToEvaluateResponse> {
      if (!isUuid(req.experimentId)) throw notFound("experiment");
      const res = await tracedQuery<{
        experiment_id: string;
        space_id: string;
        dataset_id: string | null;
        id: string | null;
        example_id: string | null;
        output: string;
        fields_json: string;
        example_fields_json: string | null;
      }>(
        deps.pool,
        "runs to evaluate",
        `select x.id as experiment_id, x.space_id, x.dataset_id, r.*
           from experiments x
           left join lateral (
             select r.id, r.example_id, r.output, r.fields::text as fields_json,
                    (select e.fields::text from examples e
                      where e.dataset_id = x.dataset_id and e.id = r.example_id
                      order by (e.version_id = x.dataset_version_id) desc, e.version_id desc
                      limit 1) as example_fields_json
               from experiment_runs r
              where r.experiment_id = x.id and ($3::uuid is null or r.id > $3)
              order by r.id
              limit $4) r on true
          where x.id = $1 and x.account_id = $2`,
        [
          req.experimentId,
          req.accountId,
          isUuid(req.page?.after ?? "") ? req.page!.after : null,
          fetchSize(req.page, RUNS_PAGE_MAX),
        ],
      );
      const experiment = res.rows[0];
      if (!experiment) throw notFound("experiment");
      const rows = res.rows.filter((r): r is typeof r & { id: string } => r.id !== null);
      const { items, nextAfter } = cutPage(
        rows,
        req.page,
        (r) => r.output.length + r.fields_json.length + (r.example_fields_json?.length ?? 0),
      );
      return {
        experimentId: experiment.experiment_id,
        datasetId: experiment.dataset_id ?? "",
        spaceId: experiment.space_id,
        runs: items.map((r) => ({
          id: r.id,
          exampleId: r.example_id ?? "",
          output: r.output,
          fieldsJson: r.fields_json,
          exampleFieldsJson: r.example_fields_json ?? "{}",
        })),
        page: { nextAfter },
      };
    },

    async examplesToRun(req: ExamplesToRunRequest): Promise<ExamplesToRunResponse> {
      const dataset = await datasetInAccount(deps.pool, req.accountId, req.datasetId);
      const version = await findVersion(deps.pool, dataset.id, req.datasetVersionId);
      if (!version) throw notFound("dataset version");
      // Parameters $1–$4 are the page's own.
      const clauses: string[] = [];
      const params: unknown[] = [];
      if (req.exampleIds.length > 0) {
        params.push(req.exampleIds.filter(isUuid));
        clauses.push("x.id = any($5::uuid[])");
      }
      if (req.filter.trim() !== "") {
        const compiled = compileFilter(req.filter, exampleColumns, 5 + params.length);
        clauses.push(`(${compiled.sql})`);
        params.push(...compiled.params);
      }
      const rows = await examplePage(
        deps.pool,
        version,
        isUuid(req.page?.after ?? "") ? req.page!.after : "",
        clampLimit(req.page?.limit, LIMITS.EXAMPLES_PAGE_MAX) + 1,
        clauses.length > 0 ? { sql: clauses.join(" and "), params } : undefined,
      );
      const { items, nextAfter } = cutPage(rows, req.page, (r) => r.fields_json.length);
      return {
        datasetId: dataset.id,
        datasetVersionId: version.id,
        spaceId: dataset.space_id,
        examples: items.map((r) => ({ id: r.id, fieldsJson: r.fields_json })),
        page: { nextAfter },
      };
    },
  };
}
