import type { Pool } from "pg";
import { DomainError, hasSpacePermission, notFound, type CallContext } from "@argus/platform";
import type { DatasetPort } from "./datasetPort.ts";
import { findResource } from "./resources.ts";

/**
 * Every resource type that carries tags, with the permissions that read it and change it.
 * Attaching or detaching a tag changes the resource (like its name), so it needs the
 * resource's UPDATE permission; the tag itself is unchanged, so TAG_UPDATE is not asked.
 */
export const TAGGABLE = {
  project: { label: "project", read: "PROJECT_READ", update: "PROJECT_UPDATE", owner: "catalog" },
  prompt: { label: "prompt", read: "PROMPT_READ", update: "PROMPT_UPDATE", owner: "catalog" },
  evaluator: {
    label: "evaluator",
    read: "EVALUATOR_READ",
    update: "EVALUATOR_UPDATE",
    owner: "catalog",
  },
  annotation_queue: {
    label: "annotation queue",
    read: "QUEUE_READ",
    update: "QUEUE_UPDATE",
    owner: "catalog",
  },
  dataset: { label: "dataset", read: "DATASET_READ", update: "DATASET_UPDATE", owner: "dataset" },
  experiment: {
    label: "experiment",
    read: "EXPERIMENT_READ",
    update: "EXPERIMENT_UPDATE",
    owner: "dataset",
  },
} as const;

export type TaggableType = keyof typeof TAGGABLE;

export interface TaggableRef {
  type: TaggableType;
  id: string;
  spaceId: string;
}

export function isTaggableType(t: string): t is TaggableType {
  return Object.hasOwn(TAGGABLE, t);
}

/**
 * The resource a tag request targets, checked for the caller: a resource of another account,
 * a missing one and one the caller may not read are the same 404; readable but not
 * changeable is 403.
 */
export async function resolveTaggable(
  deps: { pool: Pool; datasets: DatasetPort },
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
  const p = ctx.principal;
  if (!found || found.accountId !== p.accountId || !hasSpacePermission(p, found.spaceId, kind.read))
    throw notFound(kind.label);
  if (need === "update" && !hasSpacePermission(p, found.spaceId, kind.update))
    throw new DomainError("access-forbidden", `missing permission ${kind.update} in this space`);
  return { type, id, spaceId: found.spaceId };
}
