import {
  DomainError,
  fetchSize,
  notFound,
  pageOf,
  spaceRuleSql,
  type CallContext,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  AccessFacts,
  AccessFactsBatch,
  GetAccessFactsBatchRequest,
  GetAccessFactsRequest,
  GetSpaceRequest,
  ListSpacesRequest,
  ListSpacesResponse,
  Space,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { SPACE_COLUMNS, toSpace, type SpaceRow } from "./spaceRows.ts";
import { loadVisibleSpace } from "./spaceAccess.ts";

// One list page's worth, with room: the catalog asks for the spaces of at most 1000 rows.
const MAX_FACTS = 1000;

export function spaceQueries({ pool }: { pool: Pool }) {
  return {
    async getSpace(req: GetSpaceRequest, ctx: CallContext): Promise<Space> {
      return toSpace(await loadVisibleSpace(pool, ctx, req.id));
    },

    async getAccessFacts(req: GetAccessFactsRequest, ctx: CallContext): Promise<AccessFacts> {
      const res = await tracedQuery<{
        organization_id: string;
        is_private: boolean;
        project_restricted: boolean;
      }>(
        pool,
        "access facts",
        `select s.organization_id, s.is_private,
                exists (select 1 from resource_restrictions r
                         where r.account_id = $2 and r.resource_type = 'PROJECT'
                           and r.resource_id = $3::uuid) as project_restricted
           from spaces s where s.id = $1 and s.account_id = $2`,
        [req.spaceId, ctx.principal.accountId, req.projectId || null],
      );
      const row = res.rows[0];
      if (!row) throw notFound("space");
      return {
        spaceId: req.spaceId,
        organizationId: row.organization_id,
        isPrivate: row.is_private,
        projectRestricted: row.project_restricted,
      };
    },

    async getAccessFactsBatch(
      req: GetAccessFactsBatchRequest,
      ctx: CallContext,
    ): Promise<AccessFactsBatch> {
      if (req.spaceIds.length > MAX_FACTS || req.projectIds.length > MAX_FACTS)
        throw new DomainError("invalid-request", `at most ${MAX_FACTS} spaces and projects`);
      const accountId = ctx.principal.accountId;
      const [spaces, restricted] = await Promise.all([
        tracedQuery<{ id: string; organization_id: string; is_private: boolean }>(
          pool,
          "access facts of spaces",
          `select id, organization_id, is_private from spaces
            where account_id = $1 and id = any($2::uuid[])`,
          [accountId, req.spaceIds],
        ),
        tracedQuery<{ resource_id: string }>(
          pool,
          "restricted of projects",
          `select resource_id from resource_restrictions
            where account_id = $1 and resource_type = 'PROJECT' and resource_id = any($2::uuid[])`,
          [accountId, req.projectIds],
        ),
      ]);
      return {
        spaces: spaces.rows.map((r) => ({
          spaceId: r.id,
          organizationId: r.organization_id,
          isPrivate: r.is_private,
          projectRestricted: false,
        })),
        restrictedProjectIds: restricted.rows.map((r) => r.resource_id),
      };
    },

    async listSpaces(req: ListSpacesRequest, ctx: CallContext): Promise<ListSpacesResponse> {
      const p = ctx.principal;
      const visible = spaceRuleSql(p, null, "s", 6);
      const res = await tracedQuery<SpaceRow>(
        pool,
        "list spaces",
        `select ${SPACE_COLUMNS} from spaces s
          where account_id = $1
            and ($2::uuid is null or organization_id = $2)
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::uuid is null or id < $4)
            and ${visible.sql}
          order by id desc
          limit $5`,
        [
          p.accountId,
          req.organizationId || null,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
          ...visible.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { spaces: items.map(toSpace), page: { nextAfter } };
    },
  };
}
