import {
  DomainError,
  actorMetadata,
  fetchSize,
  isAccountAdmin,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  CreateSpaceRequest,
  GetSpaceRequest,
  ListSpacesRequest,
  ListSpacesResponse,
  Space,
} from "@argus/proto/identity/v1";
import { streamId } from "@argus/contracts";
import { spaceDecider } from "./domain/space.ts";
import type { IdentityDeps } from "./service.ts";
import { spaceVisibleTo as visibleTo } from "./spaceAccess.ts";

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

export const spaceNameConflict = (name: string | undefined) => ({
  spaces_name_per_org: `a space named ${JSON.stringify(name)} already exists in this organization`,
});

export function spaceHandlers(deps: Pick<IdentityDeps, "pool" | "commands">) {
  const { pool, commands } = deps;
  return {
    async createSpace(req: CreateSpaceRequest, ctx: CallContext): Promise<Space> {
      const p = ctx.principal;
      const org = await tracedQuery(
        pool,
        "find organization",
        "select 1 from organizations where id = $1 and account_id = $2",
        [req.organizationId, p.accountId],
      );
      if (org.rowCount === 0) throw notFound("organization");
      if (!isAccountAdmin(p))
        throw new DomainError(
          "access-forbidden",
          "creating spaces requires the account admin role",
        );
      const id = uuidv7();
      const { events } = await commands.handle(
        streamId("space", id),
        spaceDecider,
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
        { ...actorMetadata(ctx), organization_id: req.organizationId, space_id: id },
        { conflicts: spaceNameConflict(req.name) },
      );
      const created = events[0]!.data as { created_at: string };
      return {
        id,
        organizationId: req.organizationId,
        name: req.name,
        description: req.description,
        isPrivate: req.isPrivate,
        createdAt: created.created_at,
      };
    },

    async getSpace(req: GetSpaceRequest, ctx: CallContext): Promise<Space> {
      const res = await tracedQuery<SpaceRow>(
        pool,
        "get space",
        `select ${SPACE_COLUMNS} from spaces where id = $1 and account_id = $2`,
        [req.id, ctx.principal.accountId],
      );
      const row = res.rows[0];
      if (!row || !visibleTo(ctx, row)) throw notFound("space");
      return toSpace(row);
    },

    async listSpaces(req: ListSpacesRequest, ctx: CallContext): Promise<ListSpacesResponse> {
      const p = ctx.principal;
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
        [
          p.accountId,
          req.organizationId || null,
          req.name || null,
          req.page?.after || null,
          isAccountAdmin(p),
          Object.keys(p.spacePermissions),
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { spaces: items.map(toSpace), page: { nextAfter } };
    },
  };
}
