import type { CallContext, Permission } from "@argus/platform";
import { requirePermissionAt } from "@argus/spaces";
import type { ProjectPlace } from "./tracingProjects.ts";
import { PROJECT_ACCESS } from "../shared/tracingRules.ts";
import type { TracingDeps } from "../deps.ts";

/** The project whose spans the caller acts on with `permission` (404 unseen, 403 without it). */
export async function loadProject(
  deps: Pick<TracingDeps, "projects" | "spaces">,
  ctx: CallContext,
  id: string,
  permission: Permission,
): Promise<ProjectPlace> {
  return authorizedProject(deps, ctx, await deps.projects.byId(ctx, id), permission);
}

/** The space's project of this name, as loadProject has it (the SDK names projects). */
export async function loadProjectByName(
  deps: Pick<TracingDeps, "projects" | "spaces">,
  ctx: CallContext,
  spaceId: string,
  name: string,
  permission: Permission,
): Promise<ProjectPlace> {
  return authorizedProject(deps, ctx, await deps.projects.byName(ctx, spaceId, name), permission);
}

async function authorizedProject(
  deps: Pick<TracingDeps, "spaces">,
  ctx: CallContext,
  project: ProjectPlace | undefined,
  permission: Permission,
): Promise<ProjectPlace> {
  await requirePermissionAt(
    deps.spaces,
    ctx,
    project && { accountId: project.accountId, spaceId: project.spaceId, projectId: project.id },
    PROJECT_ACCESS,
    permission,
  );
  return project!;
}
