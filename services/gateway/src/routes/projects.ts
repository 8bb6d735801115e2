import { DomainError, decodeId, encodeId } from "@argus/platform";
import { ProjectServiceService, type Project } from "@argus/proto/catalog/v1/projects";
import type { Backend } from "../backend.ts";
import { pathId, spaceListQuery } from "./params.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

/**
 * Argus projects hold an LLM application's traces: the public API's APPLICATION type. It has
 * no HARNESS or EXPERIMENT projects, so those filters match nothing (README, Projects).
 */
const PROJECT_TYPE = "APPLICATION";

function toPublicProject(p: Project) {
  return {
    id: encodeId("Project", p.id),
    name: p.name,
    space_id: encodeId("Space", p.spaceId),
    created_at: p.createdAt,
    project_type: PROJECT_TYPE,
  };
}

export function projectHandlers(catalog: Backend): ResourceHandlers<"projects"> {
  const projectId = (raw: string | undefined): string => {
    const id = pathId("Project", raw, "project");
    return id;
  };
  return {
    async list_projects(req) {
      const query = spaceListQuery(req);
      const type = req.query.project_type;
      if (query === null || (type !== undefined && type !== PROJECT_TYPE))
        return listPage("projects", []);
      const res = await catalog.call(ProjectServiceService.listProjects, query, req);
      return listPage("projects", res.projects.map(toPublicProject), res.page);
    },

    async create_project(req) {
      const body = req.body;
      const spaceId = decodeId("Space", body.space_id);
      if (spaceId === null) throw new DomainError("invalid-request", "space_id is not a space id");
      const project = await catalog.call(
        ProjectServiceService.createProject,
        { spaceId, name: body.name },
        req,
      );
      return { status: 201, body: toPublicProject(project) };
    },

    async get_project(req) {
      const project = await catalog.call(
        ProjectServiceService.getProject,
        { id: projectId(req.params.project_id) },
        req,
      );
      return { status: 200, body: toPublicProject(project) };
    },

    async update_project(req) {
      const body = req.body;
      const project = await catalog.call(
        ProjectServiceService.updateProject,
        { id: projectId(req.params.project_id), name: body.name },
        req,
      );
      return { status: 200, body: toPublicProject(project) };
    },

    delete_project: (req) =>
      noContent(
        catalog.call(
          ProjectServiceService.deleteProject,
          { id: projectId(req.params.project_id) },
          req,
        ),
      ),
  };
}
