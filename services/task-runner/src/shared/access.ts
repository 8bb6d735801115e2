import type { Permission, ResourceAccess } from "@argus/platform";
import type { RowPlace } from "@argus/spaces";

/** Project tasks answer to PROJECT_EVAL_TASK_* (and a restricted project's bindings). */
export type TaskKind = "project" | "dataset";

export const accessOf = (kind: TaskKind): ResourceAccess => ({
  label: "task",
  read: kind === "project" ? "PROJECT_EVAL_TASK_READ" : "EXPERIMENT_EVAL_TASK_READ",
});

/** Where a task lives, as authorization sees it. */
export const placeOf = (r: {
  account_id: string;
  space_id: string;
  project_id: string | null;
}): RowPlace => ({
  accountId: r.account_id,
  spaceId: r.space_id,
  ...(r.project_id ? { projectId: r.project_id } : {}),
});

/** A project task's permissions are PROJECT_EVAL_TASK_*, a dataset task's EXPERIMENT_EVAL_TASK_*. */
export const permissionOf = (
  kind: TaskKind,
  action: "CREATE" | "READ" | "UPDATE" | "DELETE",
): Permission =>
  `${kind === "project" ? "PROJECT" : "EXPERIMENT"}_EVAL_TASK_${action}` as Permission;

export const kindOf = (r: { project_id: string | null }): TaskKind =>
  r.project_id ? "project" : "dataset";
