import { fetchSize, isAccountAdmin, pageOf, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  GetSpaceRequest,
  ListSpacesRequest,
  ListSpacesResponse,
  Space,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { SPACE_COLUMNS, toSpace, type SpaceRow } from "../projections/tenancyRows.ts";
import { loadVisibleSpace } from "./spaceAccess.ts";

export function spaceQueries({ pool }: { pool: Pool }) {
  return {
    async getSpace(req: GetSpaceRequest, ctx: CallContext): Promise<Space> {
      return toSpace(await loadVisibleSpace(pool, ctx, req.id));
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
