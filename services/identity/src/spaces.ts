import { DomainError, actorMetadata, isAccountAdmin, notFound, uuidv7, type CallContext } from "@argus/platform";
import type { EventStore } from "@argus/eventstore";
import { tracedQuery } from "@argus/eventstore";
import type { CreateSpaceRequest, GetSpaceRequest, ListSpacesRequest, ListSpacesResponse, Space } from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { decideSpace, initialSpaceState } from "./domain/space.ts";
import { project } from "./projection.ts";
import { isUniqueViolation } from "./pgErrors.ts";

interface SpaceRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
}

const SPACE_COLUMNS = "id, organization_id, name, description, is_private, created_at";

function toSpace(r: SpaceRow): Space {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    isPrivate: r.is_private,
    createdAt: r.created_at.toISOString(),
  };
}

/** Private spaces are invisible to non-members who are not admins (ARCHITECTURE §8). */
function visibleTo(ctx: CallContext, row: Pick<SpaceRow, "id" | "is_private">): boolean {
  return !row.is_private || isAccountAdmin(ctx.principal) || row.id in ctx.principal.spacePermissions;
}

export function spaceHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;
  return {
    async createSpace(req: CreateSpaceRequest, ctx: CallContext): Promise<Space> {
      const p = ctx.principal;
      const org = await pool.query<{ id: string }>("select id from organizations where id = $1 and account_id = $2", [
        req.organizationId,
        p.accountId,
      ]);
      if (org.rowCount === 0) throw notFound("organization");
      if (!isAccountAdmin(p)) throw new DomainError("access-forbidden", "creating spaces requires the account admin role");
      const id = uuidv7();
      const events = decideSpace(
        {
          type: "CreateSpace",
          id,
          accountId: p.accountId,
          organizationId: req.organizationId,
          name: req.name,
          description: req.description,
          isPrivate: req.isPrivate,
          now: new Date(),
        },
        initialSpaceState,
      );
      try {
        await store.transaction(async (tx) => {
          await tx.append(`space-${id}`, 0, events.map((e) => ({ ...e, metadata: { ...actorMetadata(ctx), organization_id: req.organizationId, space_id: id } })));
          await project(tx.client, events);
        });
      } catch (err) {
        if (isUniqueViolation(err, "spaces_name_per_org")) {
          throw new DomainError("resource-conflict", `a space named ${JSON.stringify(req.name)} already exists in this organization`);
        }
        throw err;
      }
      const created = events[0]!.data;
      return {
        id,
        organizationId: created.organization_id,
        name: created.name,
        description: created.description,
        isPrivate: created.is_private,
        createdAt: created.created_at,
      };
    },

    async getSpace(req: GetSpaceRequest, ctx: CallContext): Promise<Space> {
      const res = await pool.query<SpaceRow>(`select ${SPACE_COLUMNS} from spaces where id = $1 and account_id = $2`, [
        req.id,
        ctx.principal.accountId,
      ]);
      const row = res.rows[0];
      if (!row || !visibleTo(ctx, row)) throw notFound("space");
      return toSpace(row);
    },

    async listSpaces(req: ListSpacesRequest, ctx: CallContext): Promise<ListSpacesResponse> {
      const p = ctx.principal;
      const limit = Math.min(Math.max(req.page?.limit ?? 50, 1), 100);
      const after = req.page?.after || null;
      const res = await tracedQuery<SpaceRow>(
        pool,
        "list spaces",
        `select ${SPACE_COLUMNS} from spaces
          where account_id = $1
            and ($2::uuid is null or organization_id = $2)
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::uuid is null or id < $4)
            and ($5 or not is_private or id = any($6::uuid[]))
          order by id desc
          limit $7`,
        [p.accountId, req.organizationId || null, req.name || null, after, isAccountAdmin(p), Object.keys(p.spacePermissions), limit + 1],
      );
      const rows = res.rows.slice(0, limit);
      const more = res.rows.length > limit;
      return { spaces: rows.map(toSpace), page: { nextAfter: more ? rows[rows.length - 1]!.id : "" } };
    },
  };
}
