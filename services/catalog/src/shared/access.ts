import type { Permission, ResourceAccess } from "@argus/platform";

/** How each catalog resource is named in problems and which permission reads it. */
export const ACCESS = {
  tag: { label: "tag", read: "TAG_READ" },
  project: { label: "project", read: "PROJECT_READ" },
  prompt: { label: "prompt", read: "PROMPT_READ" },
  promptVersion: { label: "prompt version", read: "PROMPT_READ" },
  promptLabel: { label: "label", read: "PROMPT_READ" },
  evaluator: { label: "evaluator", read: "EVALUATOR_READ" },
  evaluatorVersion: { label: "evaluator version", read: "EVALUATOR_READ" },
  annotationConfig: { label: "annotation config", read: "ANNOTATION_CONFIG_READ" },
  annotationQueue: { label: "annotation queue", read: "QUEUE_READ" },
} as const satisfies Record<string, ResourceAccess>;

interface Taggable extends ResourceAccess {
  update: Permission;
  owner: "catalog" | "dataset" | "tracing";
}

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
  annotation_config: {
    label: "annotation config",
    read: "ANNOTATION_CONFIG_READ",
    update: "ANNOTATION_CONFIG_UPDATE",
    owner: "catalog",
  },
  dataset: { label: "dataset", read: "DATASET_READ", update: "DATASET_UPDATE", owner: "dataset" },
  experiment: {
    label: "experiment",
    read: "EXPERIMENT_READ",
    update: "EXPERIMENT_UPDATE",
    owner: "dataset",
  },
  monitor: { label: "monitor", read: "MONITOR_READ", update: "MONITOR_UPDATE", owner: "tracing" },
} as const satisfies Record<string, Taggable>;

export type TaggableType = keyof typeof TAGGABLE;

export const isTaggableType = (t: string): t is TaggableType => Object.hasOwn(TAGGABLE, t);
