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
  const project = await deps.projects.byId(ctx, id);
  await requirePermissionAt(
    deps.spaces,
    ctx,
    project && { accountId: project.accountId, spaceId: project.spaceId, projectId: project.id },
    PROJECT_ACCESS,
    permission,
  );
  return project!;
}
