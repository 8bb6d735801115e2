import type { Pool } from "pg";
import {
  DomainError,
  actorMetadata,
  fetchSize,
  hasProjectPermission,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateProjectRequest,
  DeleteProjectRequest,
  DeleteProjectResponse,
  GetProjectRequest,
  ListProjectsRequest,
  ListProjectsResponse,
  Project,
  UpdateProjectRequest,
} from "@argus/proto/catalog/v1/projects";
import { commit } from "./commit.ts";
import { decideProject, initialProjectState, type ProjectCommand } from "./domain/project.ts";
import type { Spaces } from "./spaces.ts";
import { isUuid } from "./tagRows.ts";

interface ProjectRow {
  id: string;
  space_id: string;
  name: string;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, space_id, name, version, created_at, updated_at";

function toProject(r: ProjectRow): Project {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const nameConflict = (name: string) => ({
  projects_name_per_space: `a project named ${JSON.stringify(name)} already exists in this space`,
});

export function projectHandlers(deps: { pool: Pool; store: EventStore; spaces: Spaces }) {
  const { pool, store, spaces } = deps;

  async function find(ctx: CallContext, id: string): Promise<ProjectRow | undefined> {
    if (!isUuid(id)) return undefined;
    const res = await tracedQuery<ProjectRow>(
      pool,
      "get project",
      `select ${COLUMNS} from projects where id = $1 and account_id = $2`,
      [id, ctx.principal.accountId],
    );
    return res.rows[0];
  }

  /** The project as the caller may act on it: unreadable is 404, readable without `permission` 403. */
  async function load(ctx: CallContext, id: string, permission: string): Promise<ProjectRow> {
    const row = await find(ctx, id);
    // A restricted project answers only to its explicit bindings (hasProjectPermission).
    if (!row || !hasProjectPermission(ctx.principal, row.space_id, row.id, "PROJECT_READ"))
      throw notFound("project");
    if (!hasProjectPermission(ctx.principal, row.space_id, row.id, permission))
      throw new DomainError("access-forbidden", `missing permission ${permission} on this project`);
    return row;
  }

  async function apply(
    ctx: CallContext,
    row: ProjectRow,
    command: ProjectCommand,
    conflicts: Record<string, string> = {},
  ): Promise<void> {
    const events = decideProject(command, { exists: true, spaceId: row.space_id });
    await commit(
      store,
      `project-${row.id}`,
      row.version,
      events,
      { ...actorMetadata(ctx), space_id: row.space_id },
      conflicts,
    );
  }

  return {
    async createProject(req: CreateProjectRequest, ctx: CallContext): Promise<Project> {
      const p = ctx.principal;
      const space = await spaces.get(ctx, req.spaceId);
      if (!hasSpacePermission(p, space.id, "PROJECT_CREATE"))
        throw new DomainError(
          "access-forbidden",
          "missing permission PROJECT_CREATE in this space",
        );
      const id = uuidv7();
      const now = new Date();
      const events = decideProject(
        {
          type: "CreateProject",
          id,
          accountId: p.accountId,
          spaceId: space.id,
          name: req.name,
          now,
        },
        initialProjectState,
      );
      await commit(
        store,
        `project-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: space.id },
        nameConflict(req.name),
      );
      return toProject({
        id,
        space_id: space.id,
        name: req.name,
        version: 1,
        created_at: now,
        updated_at: now,
      });
    },

    async getProject(req: GetProjectRequest, ctx: CallContext): Promise<Project> {
      return toProject(await load(ctx, req.id, "PROJECT_READ"));
    },

    async listProjects(req: ListProjectsRequest, ctx: CallContext): Promise<ListProjectsResponse> {
      const p = ctx.principal;
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const readable = Object.entries(p.spacePermissions)
        .filter(([, set]) => set.permissions.includes("PROJECT_READ"))
        .map(([space]) => space);
      // Restricted projects: hidden unless a PROJECT binding grants PROJECT_READ.
      const restricted = Object.entries(p.restrictedProjects);
      const restrictedReadable = restricted
        .filter(([, set]) => set.permissions.includes("PROJECT_READ"))
        .map(([project]) => project);
      const res = await tracedQuery<ProjectRow>(
        pool,
        "list projects",
        `select ${COLUMNS} from projects
          where account_id = $1
            and ($2::uuid is null or space_id = $2)
            and ($3::uuid[] is null or space_id = any($3))
            and ($4::text is null or strpos(lower(name), lower($4)) > 0)
            and ($5::uuid is null or id < $5)
            and ($6 or (space_id = any($7::uuid[]) and not id = any($9::uuid[]))
                or id = any($10::uuid[]))
          order by id desc
          limit $8`,
        [
          p.accountId,
          req.spaceId || null,
          named,
          req.name || null,
          req.page?.after || null,
          isAccountAdmin(p),
          readable,
          fetchSize(req.page),
          restricted.map(([project]) => project),
          restrictedReadable,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { projects: items.map(toProject), page: { nextAfter } };
    },

    async updateProject(req: UpdateProjectRequest, ctx: CallContext): Promise<Project> {
      const row = await load(ctx, req.id, "PROJECT_UPDATE");
      await apply(
        ctx,
        row,
        { type: "UpdateProject", id: row.id, name: req.name, now: new Date() },
        nameConflict(req.name),
      );
      const updated = await find(ctx, row.id);
      if (!updated) throw notFound("project");
      return toProject(updated);
    },

    async deleteProject(
      req: DeleteProjectRequest,
      ctx: CallContext,
    ): Promise<DeleteProjectResponse> {
      const row = await load(ctx, req.id, "PROJECT_DELETE");
      await apply(ctx, row, { type: "DeleteProject", id: row.id, now: new Date() });
      return {};
    },
  };
}
