import {
  DomainError,
  actorMetadata,
  isAccountAdmin,
  notFound,
  fetchSize,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateOrganizationRequest,
  GetOrganizationRequest,
  ListOrganizationsRequest,
  ListOrganizationsResponse,
  Organization,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { commit } from "./commit.ts";
import { decideOrganization } from "./domain/organization.ts";

interface OrganizationRow {
  id: string;
  name: string;
  description: string;
  created_at: Date;
}

const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  name: r.name,
  description: r.description,
  createdAt: r.created_at.toISOString(),
});

export function organizationHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;
  return {
    async createOrganization(
      req: CreateOrganizationRequest,
      ctx: CallContext,
    ): Promise<Organization> {
      if (!isAccountAdmin(ctx.principal)) {
        throw new DomainError(
          "access-forbidden",
          "creating organizations requires the account admin role",
        );
      }
      const id = uuidv7();
      const events = decideOrganization({
        type: "CreateOrganization",
        id,
        accountId: ctx.principal.accountId,
        name: req.name,
        description: req.description,
        now: new Date(),
      });
      await commit(
        store,
        `organization-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), organization_id: id },
        {
          organizations_name_per_account: `an organization named ${JSON.stringify(req.name)} already exists`,
        },
      );
      const d = events[0]!.data;
      return { id, name: d.name, description: d.description, createdAt: d.created_at };
    },

    async listOrganizations(
      req: ListOrganizationsRequest,
      ctx: CallContext,
    ): Promise<ListOrganizationsResponse> {
      const res = await tracedQuery<OrganizationRow>(
        pool,
        "list organizations",
        `select id, name, description, created_at from organizations
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
      const res = await tracedQuery<OrganizationRow>(
        pool,
        "get organization",
        "select id, name, description, created_at from organizations where id = $1 and account_id = $2",
        [req.id, ctx.principal.accountId],
      );
      const row = res.rows[0];
      if (!row) throw notFound("organization");
      return toOrganization(row);
    },
  };
}
