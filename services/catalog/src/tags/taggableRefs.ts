import type { Pool } from "pg";
import { DomainError, type CallContext } from "@argus/platform";
import { TAGGABLE, isTaggableType, type TaggableType } from "../shared/access.ts";
import { findResource } from "../shared/resourceRegistry.ts";
import type { DatasetPort } from "../peers/datasetPort.ts";
import { requirePermissionAt, type RowPlace, type Spaces } from "@argus/spaces";
import type { MonitorPort } from "./monitorPort.ts";

export interface TaggableRef {
  type: TaggableType;
  id: string;
  spaceId: string;
}

/**
 * The resource a tag request targets, checked for the caller: catalog resources come from the
 * resource registry, datasets, experiments and monitors from their owner (asked as the caller;
 * a monitor answers to its project's restriction too).
 * Unreadable is 404; readable but not changeable (`need: "update"`) is 403.
 */
export async function resolveTaggable(
  deps: { pool: Pool; datasets: DatasetPort; monitors: MonitorPort; spaces: Spaces },
  ctx: CallContext,
  type: string,
  id: string,
  need: "read" | "update",
): Promise<TaggableRef> {
  if (!isTaggableType(type)) throw new DomainError("invalid-request", `cannot tag a ${type}`);
  const kind = TAGGABLE[type];
  const found: RowPlace | undefined =
    kind.owner === "catalog"
      ? await findResource(deps.pool, type, id)
      : kind.owner === "tracing"
        ? await deps.monitors.placeOf(ctx, id)
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
