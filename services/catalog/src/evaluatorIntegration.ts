import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, decodeId, type CallContext } from "@argus/platform";
import type { EvaluatorVersionContent } from "./domain/evaluator.ts";
import type { Spaces } from "./spaces.ts";

/**
 * A TEMPLATE evaluator runs on the AI integration its `llm_config.ai_integration_id` names, so
 * that must be an integration of the account that applies to the evaluator's space: scoped to
 * it, to its organization, or account-wide (no scopings). Anything else is 422. The id is
 * the public one: the config is stored and returned as the caller wrote it.
 */
export async function requireUsableIntegration(
  deps: { pool: Pool; spaces: Spaces },
  ctx: CallContext,
  spaceId: string,
  version: EvaluatorVersionContent,
): Promise<void> {
  if (version.config_kind !== "TEMPLATE") return;
  const llm = version.config.llm_config;
  if (typeof llm !== "object" || llm === null) return;
  const publicId = (llm as Record<string, unknown>).ai_integration_id;
  if (typeof publicId !== "string") return;
  const unusable = new DomainError(
    "unprocessable-entity",
    "llm_config.ai_integration_id does not name an AI integration available in the evaluator's space",
  );
  const id = decodeId("AiIntegration", publicId);
  if (!id) throw unusable;
  const space = await deps.spaces.get(ctx, spaceId);
  const res = await tracedQuery(
    deps.pool,
    "evaluator AI integration",
    `select 1 from ai_integrations
      where id = $1 and account_id = $2
        and (jsonb_array_length(scopings) = 0
          or $3::uuid = any(scoped_space_ids)
          or exists (select 1 from jsonb_array_elements(scopings) s
            where s ->> 'space_id' is null
              and (s ->> 'organization_id' is null or s ->> 'organization_id' = $4)))`,
    [id, ctx.principal.accountId, spaceId, space.organizationId],
  );
  if (res.rowCount === 0) throw unusable;
}
