import { tracedQuery } from "@argus/eventstore";
import { fetchSize, isAccountAdmin, pageOf, type CallContext } from "@argus/platform";
import type {
  GetProjectRequest,
  ListProjectsRequest,
  ListProjectsResponse,
  Project,
} from "@argus/proto/catalog/v1/projects";
import { ACCESS } from "../domain/access.ts";
import {
  PROJECT_COLUMNS,
  findProject,
  toProject,
  type ProjectRow,
} from "../projections/projectRows.ts";
import { authorized, projectPlaceOf } from "../projections/rows.ts";
import type { CatalogDeps } from "../service.ts";

export function projectQueries({ pool, spaces }: CatalogDeps) {
  return {
    async getProject(req: GetProjectRequest, ctx: CallContext): Promise<Project> {
      const row = await findProject(pool, req.id);
      return toProject(authorized(ctx, row, ACCESS.project, undefined, projectPlaceOf));
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
        `select ${PROJECT_COLUMNS} from projects
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
  };
}
