import type {
  CreateTagRequest,
  DeleteTagRequest,
  DeleteTagResponse,
  Tag,
  UpdateTagRequest,
} from "@argus/proto/catalog/v1/tags";
import type { CallContext } from "@argus/platform";
import { ACCESS } from "../shared/access.ts";
import { tagDecider } from "./tagDecider.ts";
import { findTag, toTag } from "./tagRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

const TAG_NAME_CONFLICT = "A tag with this name already exists in the space";
const conflicts = { tags_name_per_space: TAG_NAME_CONFLICT };

/** Create, update and delete of tags (reads: tagQueries.ts). */
export function tagCommands(deps: CatalogDeps) {
  const tags = resourceCommands(deps, {
    aggregate: "tag",
    decider: tagDecider,
    access: ACCESS.tag,
    find: findTag,
  });
  const present = async (ctx: CallContext, id: string): Promise<Tag> =>
    toTag(await tags.load(ctx, id));

  return {
    async createTag(req: CreateTagRequest, ctx: CallContext): Promise<Tag> {
      const { events } = await tags.create(
        ctx,
        req.spaceId,
        "TAG_CREATE",
        (id) => ({
          type: "CreateTag",
          id,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          description: req.description ?? null,
          color: req.color ?? null,
          now: deps.clock.now(),
        }),
        conflicts,
      );
      // Answered from the event: creating needs TAG_CREATE, not TAG_READ.
      const created = events.find((e) => e.type === "TagCreated")!.data;
      const at = (iso: string) => new Date(iso);
      return toTag({
        ...created,
        created_at: at(created.created_at),
        updated_at: at(created.updated_at),
      });
    },

    async updateTag(req: UpdateTagRequest, ctx: CallContext): Promise<Tag> {
      const command = {
        type: "UpdateTag",
        name: req.name,
        description: req.clearDescription ? null : req.description,
        color: req.clearColor ? null : req.color,
        now: deps.clock.now(),
      } as const;
      const row = await tags.change(ctx, req.id, "TAG_UPDATE", command, conflicts);
      return present(ctx, row.id);
    },

    async deleteTag(req: DeleteTagRequest, ctx: CallContext): Promise<DeleteTagResponse> {
      await tags.change(ctx, req.id, "TAG_DELETE", { type: "DeleteTag", now: deps.clock.now() });
      return {};
    },
  };
}
