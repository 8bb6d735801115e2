import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  grantedProjectIds,
  isAccountAdmin,
  pageOf,
  spaceRuleSql,
  type CallContext,
} from "@argus/platform";
import { authorized, confirmListed, projectPlaceOf, SPACE_FACTS } from "@argus/spaces";
import type {
  GetProjectRequest,
  ListProjectsRequest,
  ListProjectsResponse,
  Project,
} from "@argus/proto/catalog/v1/projects";
import { ACCESS } from "../shared/access.ts";
import { PROJECT_COLUMNS, findProject, toProject, type ProjectRow } from "./projectRows.ts";
import type { CatalogDeps } from "../deps.ts";

export function projectQueries({ pool, spaces }: CatalogDeps) {
  return {
    async getProject(req: GetProjectRequest, ctx: CallContext): Promise<Project> {
      const row = await findProject(pool, req.id);
      return toProject(
        await authorized(spaces, ctx, row, ACCESS.project, undefined, projectPlaceOf),
      );
    },

    async listProjects(req: ListProjectsRequest, ctx: CallContext): Promise<ListProjectsResponse> {
      const p = ctx.principal;
      const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
      const readable = spaceRuleSql(p, "PROJECT_READ", "sf", 9, SPACE_FACTS("t.space_id"));
      const res = await tracedQuery<ProjectRow>(
        pool,
        "list projects",
        `select ${PROJECT_COLUMNS} from projects t
          where account_id = $1
            and ($2::uuid is null or space_id = $2)
            and ($3::uuid[] is null or space_id = any($3))
            and ($4::text is null or strpos(lower(name), lower($4)) > 0)
            and ($5::uuid is null or id < $5)
            and ($6
                 -- a restricted project answers only to its own bindings
                 or case when exists (select 1 from restricted_projects r where r.project_id = t.id)
                         then t.id = any($8::uuid[])
                         else ${readable.sql} end)
          order by id desc
          limit $7`,
        [
          p.accountId,
          req.spaceId || null,
          named,
          req.name || null,
          req.page?.after || null,
          isAccountAdmin(p),
          fetchSize(req.page),
          grantedProjectIds(p, "PROJECT_READ"),
          ...readable.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "PROJECT_READ", (r) => ({
        spaceId: r.space_id,
        projectId: r.id,
      }));
      return { projects: confirmed.map(toProject), page: { nextAfter } };
    },
  };
}
