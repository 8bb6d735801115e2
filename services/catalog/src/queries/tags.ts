import { tracedQuery } from "@argus/eventstore";
import { fetchSize, isAccountAdmin, pageOf, type CallContext } from "@argus/platform";
import type {
  GetTagRequest,
  ListTagsRequest,
  ListTagsResponse,
  Tag,
} from "@argus/proto/catalog/v1/tags";
import { ACCESS } from "../domain/access.ts";
import { authorized } from "../projections/rows.ts";
import { TAG_COLUMNS, findTag, toTag, type TagRow } from "../projections/tagRows.ts";
import type { CatalogDeps } from "../service.ts";

/** Spaces whose tags the caller may read: every space of the account for an admin. */
function readableSpaces(ctx: CallContext): string[] {
  return Object.entries(ctx.principal.spacePermissions)
    .filter(([, set]) => set.permissions.includes("TAG_READ"))
    .map(([space]) => space);
}

export function tagQueries({ pool, spaces }: CatalogDeps) {
  return {
    async getTag(req: GetTagRequest, ctx: CallContext): Promise<Tag> {
      return toTag(authorized(ctx, await findTag(pool, req.id), ACCESS.tag));
    },

    async listTags(req: ListTagsRequest, ctx: CallContext): Promise<ListTagsResponse> {
      const p = ctx.principal;
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const res = await tracedQuery<TagRow>(
        pool,
        "list tags",
        `select ${TAG_COLUMNS} from tags t
          where t.account_id = $1
            and ($2::uuid is null or t.space_id = $2)
            and ($3::uuid[] is null or t.space_id = any($3))
            and ($4::text is null or strpos(lower(t.name), lower($4)) > 0)
            and ($5::uuid is null or t.id < $5)
            and ($6 or t.space_id = any($7::uuid[]))
          order by t.id desc
          limit $8`,
        [
          p.accountId,
          req.spaceId || null,
          named,
          req.name || null,
          req.page?.after || null,
          isAccountAdmin(p),
          readableSpaces(ctx),
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { tags: items.map(toTag), page: { nextAfter } };
    },
  };
}
