import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  type CallContext,
} from "@argus/platform";
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
import { isUuid } from "../projections/rows.ts";
import type { CatalogDeps } from "../service.ts";

/**
 * Who may see an integration: admins all of the account's; others those that apply to a space
 * where they hold AI_PROVIDER_READ (account-wide ones, ones of their organizations, ones
 * scoped to that space). $1 account, $2 admin, $3 readable space ids, $4 organization ids.
 */
const VISIBLE = `account_id = $1 and ($2 or scoped_space_ids && $3::uuid[] or (cardinality($3::uuid[]) > 0 and (
    jsonb_array_length(scopings) = 0
    or exists (select 1 from jsonb_array_elements(scopings) s
      where s ->> 'space_id' is null
        and (s ->> 'organization_id' is null or (s ->> 'organization_id')::uuid = any($4::uuid[]))))))`;

function visibility(ctx: CallContext): unknown[] {
  const p = ctx.principal;
  const readable = Object.keys(p.spacePermissions).filter((s) =>
    hasSpacePermission(p, s, "AI_PROVIDER_READ"),
  );
  return [p.accountId, isAccountAdmin(p), readable, p.organizationIds];
}

/** The integration when the caller may see it; 404 otherwise. */
export async function visibleIntegration(
  pool: Pool,
  ctx: CallContext,
  id: string,
): Promise<AiIntegrationRow> {
  const res = isUuid(id)
    ? await tracedQuery<AiIntegrationRow>(
        pool,
        "get AI integration",
        `select ${AI_INTEGRATION_COLUMNS} from ai_integrations where ${VISIBLE} and id = $5`,
        [...visibility(ctx), id],
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
      const res = await tracedQuery<AiIntegrationRow>(
        pool,
        "list AI integrations",
        `select ${AI_INTEGRATION_COLUMNS} from ai_integrations
          where ${VISIBLE}
            and ($5::uuid is null or $5 = any(scoped_space_ids) or jsonb_array_length(scopings) = 0)
            and ($6::text is null or strpos(lower(name), lower($6)) > 0)
            and ($7::uuid is null or id < $7)
            and ($9::uuid[] is null or scoped_space_ids && $9::uuid[] or jsonb_array_length(scopings) = 0)
          order by id desc
          limit $8`,
        [
          ...visibility(ctx),
          req.spaceId || null,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          named,
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
