import { actorMetadata, fetchSize, notFound, pageOf, type CallContext } from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateResourceRestrictionRequest,
  DeleteResourceRestrictionRequest,
  Done,
  ListResourceRestrictionsRequest,
  ListResourceRestrictionsResponse,
  ResourceRestriction,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { requireAdmin } from "./access.ts";
import { commit } from "./commit.ts";

interface Row {
  resource_id: string;
  resource_type: string;
  created_at: Date;
}

const toRestriction = (r: Row): ResourceRestriction => ({
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  createdAt: r.created_at.toISOString(),
});

/**
 * A restricted project is reachable only through explicit PROJECT role bindings. Identity
 * does not know which space a project is in, so restrictions are managed by account admins;
 * the projects service enforces them (ARCHITECTURE §8).
 */
export function restrictionHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;
  return {
    async listResourceRestrictions(
      req: ListResourceRestrictionsRequest,
      ctx: CallContext,
    ): Promise<ListResourceRestrictionsResponse> {
      const res = await tracedQuery<Row>(
        pool,
        "list resource restrictions",
        `select resource_id, resource_type, created_at from resource_restrictions
          where account_id = $1 and ($2::uuid is null or resource_id < $2)
          order by resource_id desc limit $3`,
        [ctx.principal.accountId, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.resource_id);
      return { resourceRestrictions: items.map(toRestriction), page: { nextAfter } };
    },

    /** Restricting an already restricted project is a no-op (the public API answers 200). */
    async createResourceRestriction(
      req: CreateResourceRestrictionRequest,
      ctx: CallContext,
    ): Promise<ResourceRestriction> {
      requireAdmin(ctx.principal, "restricting projects");
      const found = await tracedQuery<Row>(
        pool,
        "get resource restriction",
        "select resource_id, resource_type, created_at from resource_restrictions where resource_id = $1 and account_id = $2",
        [req.resourceId, ctx.principal.accountId],
      );
      if (found.rows[0]) return toRestriction(found.rows[0]);
      const now = new Date().toISOString();
      await commit(
        store,
        `restriction-${req.resourceId}`,
        "any",
        [
          {
            type: "ResourceRestrictionCreated",
            data: {
              resource_id: req.resourceId,
              account_id: ctx.principal.accountId,
              resource_type: "PROJECT",
              created_at: now,
            },
          },
        ],
        { ...actorMetadata(ctx), project_id: req.resourceId },
      );
      return { resourceType: "PROJECT", resourceId: req.resourceId, createdAt: now };
    },

    async deleteResourceRestriction(
      req: DeleteResourceRestrictionRequest,
      ctx: CallContext,
    ): Promise<Done> {
      requireAdmin(ctx.principal, "lifting restrictions");
      const found = await tracedQuery(
        pool,
        "find resource restriction",
        "select 1 from resource_restrictions where resource_id = $1 and account_id = $2",
        [req.resourceId, ctx.principal.accountId],
      );
      if (found.rowCount === 0) throw notFound("resource restriction");
      await commit(
        store,
        `restriction-${req.resourceId}`,
        "any",
        [{ type: "ResourceRestrictionDeleted", data: { resource_id: req.resourceId } }],
        { ...actorMetadata(ctx), project_id: req.resourceId },
      );
      return {};
    },
  };
}
