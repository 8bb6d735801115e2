import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf, spaceRuleSql, type CallContext } from "@argus/platform";
import { authorized, confirmListed, SPACE_FACTS } from "@argus/spaces";
import type {
  GetTagRequest,
  ListTagsRequest,
  ListTagsResponse,
  Tag,
} from "@argus/proto/catalog/v1/tags";
import { ACCESS } from "../shared/access.ts";
import { TAG_COLUMNS, findTag, toTag, type TagRow } from "./tagRows.ts";
import type { CatalogDeps } from "../deps.ts";

export function tagQueries({ pool, spaces }: CatalogDeps) {
  return {
    async getTag(req: GetTagRequest, ctx: CallContext): Promise<Tag> {
      return toTag(await authorized(spaces, ctx, await findTag(pool, req.id), ACCESS.tag));
    },

    async listTags(req: ListTagsRequest, ctx: CallContext): Promise<ListTagsResponse> {
      const p = ctx.principal;
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const readable = spaceRuleSql(p, "TAG_READ", "sf", 7, SPACE_FACTS("t.space_id"));
      const res = await tracedQuery<TagRow>(
        pool,
        "list tags",
        `select ${TAG_COLUMNS} from tags t
          where t.account_id = $1
            and ($2::uuid is null or t.space_id = $2)
            and ($3::uuid[] is null or t.space_id = any($3))
            and ($4::text is null or strpos(lower(t.name), lower($4)) > 0)
            and ($5::uuid is null or t.id < $5)
            and ${readable.sql}
          order by t.id desc
          limit $6`,
        [
          p.accountId,
          req.spaceId || null,
          named,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          ...readable.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "TAG_READ", (r) => ({
        spaceId: r.space_id,
      }));
      return { tags: confirmed.map(toTag), page: { nextAfter } };
    },
  };
}
