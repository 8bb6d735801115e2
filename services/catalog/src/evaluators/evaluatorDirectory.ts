import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import { isUuid } from "@argus/spaces";
import type {
  ResolveEvaluatorsRequest,
  ResolveEvaluatorsResponse,
} from "@argus/proto/catalog/v1/config_directory";
import type { CatalogDeps } from "../deps.ts";

const MAX_EVALUATORS = 100;

/** EvaluatorDirectory: served to the task runner only (service.ts), as itself. */
export function evaluatorDirectoryQueries({ pool }: Pick<CatalogDeps, "pool">) {
  return {
    /** In the order asked. */
    async resolveEvaluators(
      req: ResolveEvaluatorsRequest,
      _ctx: CallContext,
    ): Promise<ResolveEvaluatorsResponse> {
      if (!isUuid(req.accountId) || !isUuid(req.spaceId))
        throw new DomainError("invalid-request", "account_id and space_id must be ids");
      if (req.evaluators.length > MAX_EVALUATORS)
        throw new DomainError("invalid-request", `at most ${MAX_EVALUATORS} evaluators`);
      const refs = req.evaluators.filter(
        (r) => isUuid(r.evaluatorId) && (r.versionId === "" || isUuid(r.versionId)),
      );
      const res = await tracedQuery<{
        evaluator_id: string;
        version_id: string;
        type: string;
        config_json: string;
      }>(
        pool,
        "resolve evaluators",
        `select e.id as evaluator_id, v.id as version_id, e.type, v.config::text as config_json
           from unnest($3::uuid[], $4::text[]) with ordinality as r(evaluator_id, version_id, n)
           join evaluators e on e.id = r.evaluator_id and e.account_id = $1 and e.space_id = $2
           cross join lateral (
             select id, config from evaluator_versions
              where evaluator_id = e.id and (r.version_id = '' or id = r.version_id::uuid)
              order by id desc limit 1) v
          order by r.n`,
        [req.accountId, req.spaceId, refs.map((r) => r.evaluatorId), refs.map((r) => r.versionId)],
      );
      return {
        evaluators: res.rows.map((r) => ({
          evaluatorId: r.evaluator_id,
          versionId: r.version_id,
          type: r.type,
          configJson: r.config_json,
        })),
      };
    },
  };
}
