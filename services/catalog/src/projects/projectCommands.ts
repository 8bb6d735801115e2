import type { CallContext } from "@argus/platform";
import type {
  CreateProjectRequest,
  DeleteProjectRequest,
  DeleteProjectResponse,
  Project,
  UpdateProjectRequest,
} from "@argus/proto/catalog/v1/projects";
import { ACCESS } from "../shared/access.ts";
import { projectDecider } from "./projectDecider.ts";
import { findProject, toProject } from "./projectRows.ts";
import { projectPlaceOf } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

const nameConflict = (name: string) => ({
  projects_name_per_space: `a project named ${JSON.stringify(name)} already exists in this space`,
});

/** Create, rename and delete of projects (reads: projectQueries.ts). */
export function projectCommands(deps: CatalogDeps) {
  const projects = resourceCommands(deps, {
    aggregate: "project",
    decider: projectDecider,
    access: ACCESS.project,
    find: findProject,
    place: projectPlaceOf,
  });

  return {
    async createProject(req: CreateProjectRequest, ctx: CallContext): Promise<Project> {
      const now = deps.clock.now();
      const { id } = await projects.create(
        ctx,
        req.spaceId,
        "PROJECT_CREATE",
        (id) => ({
          type: "CreateProject",
          id,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          now,
        }),
        nameConflict(req.name),
      );
      const at = now.toISOString();
      return { id, spaceId: req.spaceId, name: req.name, createdAt: at, updatedAt: at };
    },

    async updateProject(req: UpdateProjectRequest, ctx: CallContext): Promise<Project> {
      const command = { type: "UpdateProject", name: req.name, now: deps.clock.now() } as const;
      const row = await projects.change(
        ctx,
        req.id,
        "PROJECT_UPDATE",
        command,
        nameConflict(req.name),
      );
      return toProject(await projects.load(ctx, row.id));
    },

    async deleteProject(
      req: DeleteProjectRequest,
      ctx: CallContext,
    ): Promise<DeleteProjectResponse> {
      await projects.change(ctx, req.id, "PROJECT_DELETE", {
        type: "DeleteProject",
        now: deps.clock.now(),
      });
      return {};
    },
  };
}
