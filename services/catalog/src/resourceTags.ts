import type { Pool } from "pg";
import { DomainError, actorMetadata, type CallContext } from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  AttachTagsRequest,
  DetachTagsRequest,
  DetachTagsResponse,
  ListResourceTagsRequest,
  ResourceTags,
} from "@argus/proto/catalog/v1/tags";
import { commit } from "./commit.ts";
import type { DatasetPort } from "./datasetPort.ts";
import { decideTagging, type TaggingCommand, type TaggingState } from "./domain/tagging.ts";
import { resolveTaggable, type TaggableRef } from "./resourceRefs.ts";
import { isUuid, tagsOf, toTag } from "./tagRows.ts";

/** The tags of one resource: list, attach, detach (spec endpoints 1 and 2, and their siblings). */
export function resourceTagHandlers(deps: {
  pool: Pool;
  store: EventStore;
  datasets: DatasetPort;
}) {
  const { pool, store } = deps;

  async function stateOf(
    ref: TaggableRef,
    accountId: string,
    tagIds: readonly string[],
  ): Promise<TaggingState> {
    const ids = tagIds.filter(isUuid);
    const [tags, attached] = await Promise.all([
      tracedQuery<{ id: string; space_id: string }>(
        pool,
        "find tags to attach",
        "select id, space_id from tags where id = any($1::uuid[]) and account_id = $2",
        [ids, accountId],
      ),
      tracedQuery<{ tag_id: string }>(
        pool,
        "attached tags",
        "select tag_id from tag_attachments where resource_type = $1 and resource_id = $2",
        [ref.type, ref.id],
      ),
    ]);
    return {
      resourceType: ref.type,
      resourceId: ref.id,
      spaceId: ref.spaceId,
      attached: new Set(attached.rows.map((r) => r.tag_id)),
      tagSpaces: new Map(tags.rows.map((r) => [r.id, r.space_id])),
    };
  }

  async function change(ctx: CallContext, ref: TaggableRef, command: TaggingCommand) {
    const events = decideTagging(
      command,
      await stateOf(ref, ctx.principal.accountId, command.tagIds),
    );
    if (events.length === 0) return events;
    try {
      await commit(store, `resource_tags-${ref.id}`, "any", events, {
        ...actorMetadata(ctx),
        space_id: ref.spaceId,
      });
    } catch (err) {
      // A tag deleted between the check and the write: as if it had never existed.
      if ((err as { code?: string }).code === "23503")
        throw new DomainError("validation-error", "every tag in tag_ids must exist");
      throw err;
    }
    return events;
  }

  const resourceOf = (
    ctx: CallContext,
    req: { resourceType: string; resourceId: string },
    need: "read" | "update",
  ) => resolveTaggable(deps, ctx, req.resourceType, req.resourceId, need);

  return {
    async listResourceTags(req: ListResourceTagsRequest, ctx: CallContext): Promise<ResourceTags> {
      const ref = await resourceOf(ctx, req, "read");
      return { tags: (await tagsOf(pool, ref.type, ref.id)).map(toTag) };
    },

    async attachTags(req: AttachTagsRequest, ctx: CallContext): Promise<ResourceTags> {
      const ref = await resourceOf(ctx, req, "update");
      await change(ctx, ref, { type: "AttachTags", tagIds: req.tagIds, now: new Date() });
      return { tags: (await tagsOf(pool, ref.type, ref.id)).map(toTag) };
    },

    async detachTags(req: DetachTagsRequest, ctx: CallContext): Promise<DetachTagsResponse> {
      const ref = await resourceOf(ctx, req, "update");
      const events = await change(ctx, ref, {
        type: "DetachTags",
        tagIds: req.tagIds,
        now: new Date(),
      });
      const detached = new Set(events.flatMap((e) => e.data.tag_ids));
      return {
        detached: [...detached],
        notFound: [...new Set(req.tagIds)].filter((id) => !detached.has(id)),
      };
    },
  };
}
