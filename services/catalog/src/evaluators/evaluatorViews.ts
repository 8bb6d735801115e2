import type { Pool } from "pg";
import type { CallContext } from "@argus/platform";
import { ACCESS } from "../shared/access.ts";
import {
  findEvaluator,
  findEvaluatorVersion,
  toEvaluatorVersion,
  type EvaluatorRow,
  type EvaluatorVersionRow,
} from "./evaluatorRows.ts";
import { authorized, isUuid, type Spaces } from "@argus/spaces";

/** Evaluators and versions as the caller may read them (404 otherwise). */
export function evaluatorViews(pool: Pool, spaces: Spaces) {
  const versionWhere = async (
    ctx: CallContext,
    where: string,
    values: string[],
  ): Promise<EvaluatorVersionRow> =>
    authorized(
      spaces,
      ctx,
      await findEvaluatorVersion(pool, where, values),
      ACCESS.evaluatorVersion,
    );

  return {
    evaluator: async (ctx: CallContext, id: string): Promise<EvaluatorRow> =>
      authorized(spaces, ctx, await findEvaluator(pool, id), ACCESS.evaluator),
    versionWhere,
    version: async (ctx: CallContext, id: string): Promise<EvaluatorVersionRow> => {
      const row = isUuid(id) ? await findEvaluatorVersion(pool, "v.id = $1", [id]) : undefined;
      return authorized(spaces, ctx, row, ACCESS.evaluatorVersion);
    },
    latest: (ctx: CallContext, evaluatorId: string) =>
      versionWhere(ctx, "v.evaluator_id = $1 order by v.id desc", [evaluatorId]),
    present: toEvaluatorVersion,
  };
}
