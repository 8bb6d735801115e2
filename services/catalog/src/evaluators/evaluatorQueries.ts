import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf, type CallContext } from "@argus/platform";
import type {
  EvaluatorVersion,
  EvaluatorWithVersion,
  GetEvaluatorRequest,
  GetEvaluatorVersionRequest,
  ListEvaluatorVersionsRequest,
  ListEvaluatorVersionsResponse,
  ListEvaluatorsRequest,
  ListEvaluatorsResponse,
  ListEvaluatorTemplatesResponse,
} from "@argus/proto/catalog/v1/evaluators";
import { EVALUATOR_TEMPLATES } from "./evaluatorTemplates.ts";
import {
  EVALUATOR_COLUMNS,
  EVALUATOR_VERSION_SELECT,
  toEvaluator,
  toEvaluatorVersion,
  type EvaluatorRow,
  type EvaluatorVersionRow,
} from "./evaluatorRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { evaluatorViews } from "./evaluatorViews.ts";
import { listInSpaces } from "../shared/listInSpaces.ts";

export function evaluatorQueries(deps: CatalogDeps) {
  const { pool } = deps;
  const views = evaluatorViews(pool, deps.spaces);
  return {
    /** The built-in templates: the same for every authenticated caller, no space involved. */
    async listEvaluatorTemplates(): Promise<ListEvaluatorTemplatesResponse> {
      return {
        templates: EVALUATOR_TEMPLATES.map((t) => ({
          columnName: t.column_name,
          displayName: t.display_name,
          template: t.template,
          rails: [...t.rails],
          classificationChoicesJson: JSON.stringify(t.classification_choices),
          direction: t.direction,
          ...(t.data_granularity === null ? {} : { dataGranularity: t.data_granularity }),
        })),
      };
    },

    async listEvaluators(
      req: ListEvaluatorsRequest,
      ctx: CallContext,
    ): Promise<ListEvaluatorsResponse> {
      const list = {
        table: "evaluators",
        columns: EVALUATOR_COLUMNS,
        read: "EVALUATOR_READ",
        order: "updated",
      } as const;
      const { items, nextAfter } = await listInSpaces<EvaluatorRow>(deps, ctx, req, list);
      return { evaluators: items.map(toEvaluator), page: { nextAfter } };
    },

    async getEvaluator(req: GetEvaluatorRequest, ctx: CallContext): Promise<EvaluatorWithVersion> {
      const e = await views.evaluator(ctx, req.id);
      const v = req.versionId
        ? await views.versionWhere(ctx, "v.id = $1 and v.evaluator_id = $2", [req.versionId, e.id])
        : await views.latest(ctx, e.id);
      return { evaluator: toEvaluator(e), version: toEvaluatorVersion(v) };
    },

    async listEvaluatorVersions(
      req: ListEvaluatorVersionsRequest,
      ctx: CallContext,
    ): Promise<ListEvaluatorVersionsResponse> {
      const e = await views.evaluator(ctx, req.evaluatorId);
      const res = await tracedQuery<EvaluatorVersionRow>(
        pool,
        "list evaluator versions",
        `${EVALUATOR_VERSION_SELECT} where v.evaluator_id = $1 and ($2::uuid is null or v.id < $2)
          order by v.id desc limit $3`,
        [e.id, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { versions: items.map(toEvaluatorVersion), page: { nextAfter } };
    },

    async getEvaluatorVersion(
      req: GetEvaluatorVersionRequest,
      ctx: CallContext,
    ): Promise<EvaluatorVersion> {
      return toEvaluatorVersion(await views.version(ctx, req.id));
    },
  };
}
