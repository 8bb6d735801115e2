import type { Pool } from "pg";
import {
  DomainError,
  actorMetadata,
  fetchSize,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateTagRequest,
  DeleteTagRequest,
  DeleteTagResponse,
  GetTagRequest,
  ListTagsRequest,
  ListTagsResponse,
  Tag,
  UpdateTagRequest,
} from "@argus/proto/catalog/v1/tags";
import { commit } from "./commit.ts";
import { decideTag, initialTagState, type TagCommand } from "./domain/tag.ts";
import type { Spaces } from "./spaces.ts";
import { TAG_COLUMNS, findTag, toTag, type TagRow } from "./tagRows.ts";

export const TAG_NAME_CONFLICT = "A tag with this name already exists in the space";
const conflicts = { tags_name_per_space: TAG_NAME_CONFLICT };

/** Spaces whose tags the caller may read: every space of the account for an admin. */
function readableSpaces(ctx: CallContext): string[] {
  return Object.entries(ctx.principal.spacePermissions)
    .filter(([, set]) => set.permissions.includes("TAG_READ"))
    .map(([space]) => space);
}

export function tagHandlers(deps: { pool: Pool; store: EventStore; spaces: Spaces }) {
  const { pool, store, spaces } = deps;

  /** The tag as the caller may act on it: unreadable is 404, readable without `permission` 403. */
  async function loadTag(ctx: CallContext, id: string, permission: string): Promise<TagRow> {
    const row = await findTag(pool, id, ctx.principal.accountId);
    if (!row || !hasSpacePermission(ctx.principal, row.space_id, "TAG_READ")) throw notFound("tag");
    if (!hasSpacePermission(ctx.principal, row.space_id, permission))
      throw new DomainError("access-forbidden", `missing permission ${permission} in this space`);
    return row;
  }

  async function decideAndCommit(
    ctx: CallContext,
    row: TagRow,
    command: TagCommand,
  ): Promise<void> {
    const events = decideTag(command, { exists: true, spaceId: row.space_id });
    await commit(
      store,
      `tag-${row.id}`,
      row.version,
      events,
      { ...actorMetadata(ctx), space_id: row.space_id },
      conflicts,
    );
  }

  return {
    async createTag(req: CreateTagRequest, ctx: CallContext): Promise<Tag> {
      const p = ctx.principal;
      const space = await spaces.get(ctx, req.spaceId);
      if (!hasSpacePermission(p, space.id, "TAG_CREATE"))
        throw new DomainError("access-forbidden", "missing permission TAG_CREATE in this space");
      const id = uuidv7();
      const events = decideTag(
        {
          type: "CreateTag",
          id,
          accountId: p.accountId,
          spaceId: space.id,
          name: req.name,
          description: req.description ?? null,
          color: req.color ?? null,
          now: new Date(),
        },
        initialTagState,
      );
      await commit(
        store,
        `tag-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: space.id },
        conflicts,
      );
      const created = events.find((e) => e.type === "TagCreated")!.data;
      return toTag({
        ...created,
        version: 1,
        created_at: new Date(created.created_at),
        updated_at: new Date(created.updated_at),
      });
    },

    async getTag(req: GetTagRequest, ctx: CallContext): Promise<Tag> {
      return toTag(await loadTag(ctx, req.id, "TAG_READ"));
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

    async updateTag(req: UpdateTagRequest, ctx: CallContext): Promise<Tag> {
      const row = await loadTag(ctx, req.id, "TAG_UPDATE");
      await decideAndCommit(ctx, row, {
        type: "UpdateTag",
        id: row.id,
        name: req.name,
        description: req.clearDescription ? null : req.description,
        color: req.clearColor ? null : req.color,
        // updated_at advances on every update, even within the millisecond of the last one.
        now: new Date(Math.max(Date.now(), row.updated_at.getTime() + 1)),
      });
      const updated = await findTag(pool, row.id, ctx.principal.accountId);
      if (!updated) throw notFound("tag");
      return toTag(updated);
    },

    async deleteTag(req: DeleteTagRequest, ctx: CallContext): Promise<DeleteTagResponse> {
      const row = await loadTag(ctx, req.id, "TAG_DELETE");
      await decideAndCommit(ctx, row, { type: "DeleteTag", id: row.id, now: new Date() });
      return {};
    },
  };
}
