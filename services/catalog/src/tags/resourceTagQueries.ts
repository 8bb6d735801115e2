import type { CallContext } from "@argus/platform";
import type { ListResourceTagsRequest, ResourceTags } from "@argus/proto/catalog/v1/tags";
import { resolveTaggable } from "./taggableRefs.ts";
import { tagsOf, toTag } from "./tagRows.ts";
import type { CatalogDeps } from "../deps.ts";

/** The tags of one resource, most recently updated first; needs the resource's READ. */
export function resourceTagQueries(deps: CatalogDeps) {
  return {
    async listResourceTags(req: ListResourceTagsRequest, ctx: CallContext): Promise<ResourceTags> {
      const ref = await resolveTaggable(deps, ctx, req.resourceType, req.resourceId, "read");
      return { tags: (await tagsOf(deps.pool, ref.type, ref.id)).map(toTag) };
    },
  };
}
