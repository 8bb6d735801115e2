import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  isAccountAdmin,
  notFound,
  pageOf,
  spaceRuleSql,
  type CallContext,
} from "@argus/platform";
import { isUuid, SPACE_FACTS } from "@argus/spaces";
import type {
  AiIntegration,
  GetAiIntegrationRequest,
  ListAiIntegrationsRequest,
  ListAiIntegrationsResponse,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  AI_INTEGRATION_COLUMNS,
  toAiIntegration,
  type AiIntegrationRow,
} from "../projections/aiIntegrationRows.ts";
import type { CatalogDeps } from "../service.ts";

/**
 * Who may see an integration: admins all of the account's; others those that apply to a space
 * where they hold AI_PROVIDER_READ: scoped to that space, or to its organization, or
 * account-wide. `$1` is the account; the rule's parameters start at `first`.
 */
function visibility(ctx: CallContext, first: number): { sql: string; params: unknown[] } {
  const p = ctx.principal;
  const bySpace = spaceRuleSql(p, "AI_PROVIDER_READ", "sf", first, SPACE_FACTS("sid"));
  const readable = spaceRuleSql(p, "AI_PROVIDER_READ", "sf", first);
  if (isAccountAdmin(p)) return { sql: "account_id = $1", params: [] };
  const someReadableSpace = (where: string) =>
    `exists (select 1 from space_facts sf where sf.account_id = $1 and ${where} and ${readable.sql})`;
  return {
    sql: `account_id = $1 and (
      exists (select 1 from unnest(scoped_space_ids) sid where ${bySpace.sql})
      or (jsonb_array_length(scopings) = 0 and ${someReadableSpace("true")})
      or exists (select 1 from jsonb_array_elements(scopings) s
                  where s ->> 'space_id' is null
                    and ${someReadableSpace("(s ->> 'organization_id' is null or sf.organization_id = (s ->> 'organization_id')::uuid)")}))`,
    params: readable.params,
  };
}

/** The integration when the caller may see it; 404 otherwise. */
export async function visibleIntegration(
  pool: Pool,
  ctx: CallContext,
  id: string,
): Promise<AiIntegrationRow> {
  const visible = visibility(ctx, 3);
  const res = isUuid(id)
    ? await tracedQuery<AiIntegrationRow>(
        pool,
        "get AI integration",
        `select ${AI_INTEGRATION_COLUMNS} from ai_integrations where ${visible.sql} and id = $2`,
        [ctx.principal.accountId, id, ...visible.params],
      )
    : undefined;
  const found = res?.rows[0];
  if (!found) throw notFound("AI integration");
  return found;
}

export function aiIntegrationQueries({ pool, spaces }: CatalogDeps) {
  return {
    async listAiIntegrations(
      req: ListAiIntegrationsRequest,
      ctx: CallContext,
    ): Promise<ListAiIntegrationsResponse> {
      if (req.spaceId) await spaces.get(ctx, req.spaceId);
      // Integrations applying to the named spaces: scoped to one of them, or account-wide.
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const visible = visibility(ctx, 7);
      const res = await tracedQuery<AiIntegrationRow>(
        pool,
        "list AI integrations",
        `select ${AI_INTEGRATION_COLUMNS} from ai_integrations
          where ${visible.sql}
            and ($2::uuid is null or $2 = any(scoped_space_ids) or jsonb_array_length(scopings) = 0)
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::uuid is null or id < $4)
            and ($6::uuid[] is null or scoped_space_ids && $6::uuid[] or jsonb_array_length(scopings) = 0)
          order by id desc
          limit $5`,
        [
          ctx.principal.accountId,
          req.spaceId || null,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          named,
          ...visible.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { aiIntegrations: items.map(toAiIntegration), page: { nextAfter } };
    },

    async getAiIntegration(req: GetAiIntegrationRequest, ctx: CallContext): Promise<AiIntegration> {
      return toAiIntegration(await visibleIntegration(pool, ctx, req.id));
    },
  };
}
