import type { PoolClient } from "pg";
import { streamId } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import type {
  AttachTagsRequest,
  DetachTagsRequest,
  DetachTagsResponse,
  ResourceTags,
} from "@argus/proto/catalog/v1/tags";
import { resolveTaggable, type TaggableRef } from "./taggableRefs.ts";
import { decideTagging, type TaggingCommand, type TaggingState } from "./resourceTagDecider.ts";
import { isUuid } from "@argus/spaces";
import { tagsOf, toTag } from "./tagRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { spaceMetadata } from "@argus/spaces";

/** The resource's attachments and the named tags, read in the command's transaction. */
async function taggingState(
  client: PoolClient,
  ref: TaggableRef,
  accountId: string,
  tagIds: readonly string[],
): Promise<TaggingState> {
  const tags = await tracedQuery<{ id: string; space_id: string }>(
    client,
    "find tags to attach",
    "select id, space_id from tags where id = any($1::uuid[]) and account_id = $2",
    [tagIds.filter(isUuid), accountId],
  );
  const attached = await tracedQuery<{ tag_id: string }>(
    client,
    "attached tags",
    "select tag_id from tag_attachments where resource_type = $1 and resource_id = $2",
    [ref.type, ref.id],
  );
  return {
    resourceType: ref.type,
    resourceId: ref.id,
    spaceId: ref.spaceId,
    attached: new Set(attached.rows.map((r) => r.tag_id)),
    tagSpaces: new Map(tags.rows.map((r) => [r.id, r.space_id])),
  };
}

/** Attach and detach: they change the resource, so they need its UPDATE permission. */
export function resourceTagCommands(deps: CatalogDeps) {
  async function change(ctx: CallContext, ref: TaggableRef, command: TaggingCommand) {
    try {
      return await deps.commands.transact(async (scope) => {
        const tagsOfResource = streamId("resource_tags", ref.id);
        await scope.lockSet(tagsOfResource);
        const state = await taggingState(
          scope.client,
          ref,
          ctx.principal.accountId,
          command.tagIds,
        );
        const events = decideTagging(command, state);
        // A resource's tags are a set by nature: attachments and detachments commute, and each
        // decision rests on the attachment rows read above (under the set's lock), not on the
        // stream's order, so the stream takes the events at whatever version it has.
        await scope.appendToSet(tagsOfResource, events, spaceMetadata(ctx, ref.spaceId));
        return events;
      });
    } catch (err) {
      // A tag deleted after it was read: as if it had never existed.
      if ((err as { code?: string }).code === "23503")
        throw new DomainError("validation-error", "every tag in tag_ids must exist");
      throw err;
    }
  }

  const resourceOf = (ctx: CallContext, req: { resourceType: string; resourceId: string }) =>
    resolveTaggable(deps, ctx, req.resourceType, req.resourceId, "update");

  return {
    async attachTags(req: AttachTagsRequest, ctx: CallContext): Promise<ResourceTags> {
      const ref = await resourceOf(ctx, req);
      await change(ctx, ref, { type: "AttachTags", tagIds: req.tagIds, now: deps.clock.now() });
      return { tags: (await tagsOf(deps.pool, ref.type, ref.id)).map(toTag) };
    },

    async detachTags(req: DetachTagsRequest, ctx: CallContext): Promise<DetachTagsResponse> {
      const ref = await resourceOf(ctx, req);
      const events = await change(ctx, ref, {
        type: "DetachTags",
        tagIds: req.tagIds,
        now: deps.clock.now(),
      });
      const detached = new Set(events.flatMap((e) => e.data.tag_ids));
      return {
        detached: [...detached],
        notFound: [...new Set(req.tagIds)].filter((id) => !detached.has(id)),
      };
    },
  };
}
