import {
  fetchSize,
  notFound,
  pageOf,
  requireAccountAdmin,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type {
  GetOrganizationRequest,
  ListOrganizationsRequest,
  ListOrganizationsResponse,
  Organization,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { ORGANIZATION_COLUMNS, toOrganization, type OrganizationRow } from "./organizationRows.ts";

/** The organization if it is in the caller's account; 404 otherwise. */
export async function loadOrganization(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<OrganizationRow> {
  const res = await tracedQuery<OrganizationRow>(
    db,
    "get organization",
    `select ${ORGANIZATION_COLUMNS} from organizations where id = $1 and account_id = $2`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row) throw notFound("organization");
  return row;
}

export function organizationQueries({ pool }: { pool: Pool }) {
  return {
    async listOrganizations(
      req: ListOrganizationsRequest,
      ctx: CallContext,
    ): Promise<ListOrganizationsResponse> {
      const res = await tracedQuery<OrganizationRow>(
        pool,
        "list organizations",
        `select ${ORGANIZATION_COLUMNS} from organizations
          where account_id = $1
            and ($2::text is null or strpos(lower(name), lower($2)) > 0)
            and ($3::uuid is null or id < $3)
          order by id desc
          limit $4`,
        [ctx.principal.accountId, req.name || null, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { organizations: items.map(toOrganization), page: { nextAfter } };
    },

    async getOrganization(req: GetOrganizationRequest, ctx: CallContext): Promise<Organization> {
      return toOrganization(await loadOrganization(pool, ctx, req.id));
    },
  };
}

/** The organization, for an account admin to act on (404 if unknown, else 403). */
export async function loadOrganizationFor(
  db: Queryable,
  ctx: CallContext,
  id: string,
  what: string,
): Promise<OrganizationRow> {
  const row = await loadOrganization(db, ctx, id);
  requireAccountAdmin(ctx.principal, what);
  return row;
}
