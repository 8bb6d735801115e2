import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, decodeId, type CallContext } from "@argus/platform";
import { type Spaces } from "@argus/spaces";
import { integrationIdOf, type EvaluatorVersionContent } from "./evaluatorConfigRules.ts";

const unusable = (remote: boolean) =>
  new DomainError(
    "unprocessable-entity",
    remote
      ? "remote_config.integration_id does not name an EVALUATOR integration available in the evaluator's space"
      : "llm_config.ai_integration_id does not name an AI integration available in the evaluator's space",
  );

/**
 * A TEMPLATE evaluator runs on the AI integration its `llm_config.ai_integration_id` names, a
 * REMOTE one on the EVALUATOR integration its `remote_config.integration_id` names, so that
 * must be an integration of the account that applies to the evaluator's space: scoped to it,
 * to its organization, or account-wide (no scopings); anything else is 422. A REMOTE version
 * holds a key-share lock on the integration's row until it commits: the integration's delete
 * waits for it, then sees it and refuses (409); updates of the row do not wait. The id is the
 * public one: the config is stored and returned as the caller wrote it. Answers the check to
 * run in the command's transaction (the space's organization is identity's, asked first).
 */
export async function usableIntegrationCheck(
  spaces: Spaces,
  ctx: CallContext,
  spaceId: string,
  version: EvaluatorVersionContent,
): Promise<(client: PoolClient) => Promise<void>> {
  const publicId = integrationIdOf(version);
  if (publicId === undefined) return async () => undefined;
  const remote = version.config_kind === "REMOTE";
  const id = decodeId(remote ? "Integration" : "AiIntegration", publicId);
  const { organizationId } = await spaces.get(ctx, spaceId);
  return async (client) => {
    if (!id) throw unusable(remote);
    const res = await tracedQuery(
      client,
      "evaluator integration",
      `select 1 from ${remote ? "integrations" : "ai_integrations"}
        where id = $1 and account_id = $2 ${remote ? "and type = 'EVALUATOR'" : ""}
          and (jsonb_array_length(scopings) = 0
            or $3::uuid = any(scoped_space_ids)
            or exists (select 1 from jsonb_array_elements(scopings) s
              where s ->> 'space_id' is null
                and (s ->> 'organization_id' is null or s ->> 'organization_id' = $4)))
       ${remote ? "for key share" : ""}`,
      [id, ctx.principal.accountId, spaceId, organizationId],
    );
    if (res.rowCount === 0) throw unusable(remote);
  };
}
