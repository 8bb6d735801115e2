import type { Pool } from "pg";
import { DomainError, type CallContext } from "@argus/platform";
import { TAGGABLE, isTaggableType, type TaggableType } from "../shared/access.ts";
import { findResource } from "../shared/resourceRegistry.ts";
import type { DatasetPort } from "../peers/datasetPort.ts";
import { requirePermissionAt, type Spaces } from "@argus/spaces";

export interface TaggableRef {
  type: TaggableType;
  id: string;
  spaceId: string;
}

/**
 * The resource a tag request targets, checked for the caller: catalog resources come from the
 * resource registry, datasets and experiments from their owner (asked as the caller).
 * Unreadable is 404; readable but not changeable (`need: "update"`) is 403.
 */
export async function resolveTaggable(
  deps: { pool: Pool; datasets: DatasetPort; spaces: Spaces },
  ctx: CallContext,
  type: string,
  id: string,
  need: "read" | "update",
): Promise<TaggableRef> {
  if (!isTaggableType(type)) throw new DomainError("invalid-request", `cannot tag a ${type}`);
  const kind = TAGGABLE[type];
  const found =
    kind.owner === "catalog"
      ? await findResource(deps.pool, type, id)
      : await deps.datasets.getResourceRef(ctx, type as "dataset" | "experiment", id);
  await requirePermissionAt(
    deps.spaces,
    ctx,
    found,
    kind,
    need === "read" ? kind.read : kind.update,
  );
  return { type, id, spaceId: found!.spaceId };
}
