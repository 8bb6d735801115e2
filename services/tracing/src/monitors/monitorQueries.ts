import { tracedQuery } from "@argus/eventstore";
import {
  DomainError,
  fetchSize,
  grantedProjectIds,
  holdsAnywhere,
  isAccountAdmin,
  pageOf,
  spaceRuleSql,
  type CallContext,
} from "@argus/platform";
import type {
  GetMonitorRefRequest,
  GetMonitorRequest,
  ListMonitorEvaluationsRequest,
  ListMonitorEvaluationsResponse,
  ListMonitorsRequest,
  ListMonitorsResponse,
  Monitor,
  MonitorRef,
} from "@argus/proto/tracing/v1/monitors";
import { authorized, confirmListed, filteredSpaceIds, isUuid, SPACE_FACTS } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { evaluationsPage } from "./monitorEvaluationRows.ts";
import {
  channelUrls,
  findMonitor,
  MONITOR_ACCESS,
  MONITOR_COLUMNS,
  monitorPlaceOf,
  toMonitor,
  type MonitorRow,
} from "./monitorRows.ts";

export function monitorQueries(deps: TracingDeps) {
  const { pool, spaces } = deps;
  const readable = async (ctx: CallContext, id: string) =>
    authorized(spaces, ctx, await findMonitor(pool, id), MONITOR_ACCESS, undefined, monitorPlaceOf);

  return {
    async getMonitor(req: GetMonitorRequest, ctx: CallContext): Promise<Monitor> {
      const row = await readable(ctx, req.id);
      return toMonitor(row, await channelUrls(pool, [row]));
    },

    async getMonitorRef(req: GetMonitorRefRequest, ctx: CallContext): Promise<MonitorRef> {
      const row = await readable(ctx, req.id);
      return {
        id: row.id,
        spaceId: row.space_id,
        accountId: row.account_id,
        projectId: row.project_id,
      };
    },

    async listMonitorEvaluations(
      req: ListMonitorEvaluationsRequest,
      ctx: CallContext,
    ): Promise<ListMonitorEvaluationsResponse> {
      const row = await readable(ctx, req.id);
      const { evaluations, nextAfter } = await evaluationsPage(pool, row.id, req.page);
      return { evaluations, page: { nextAfter } };
    },

    /**
     * The public API's list: monitors the caller may read, newest first, every filter ANDed.
     * A space or project named by id that the caller cannot read is 404 (as one that does not
     * exist); a caller with MONITOR_READ nowhere is 403. Filters of families Argus has no
     * monitors of (ML types and metrics) match nothing; a custom metric id is always unknown.
     */
    async listMonitors(req: ListMonitorsRequest, ctx: CallContext): Promise<ListMonitorsResponse> {
      const p = ctx.principal;
      if (!holdsAnywhere(p, "MONITOR_READ") && grantedProjectIds(p, "MONITOR_READ").length === 0)
        throw new DomainError(
          "access-forbidden",
          "listing monitors requires MONITOR_READ in some space",
        );
      const spaceIds = await filteredSpaceIds(spaces, ctx, req, "MONITOR_READ");
      if (req.projectId) await loadProject(deps, ctx, req.projectId, "MONITOR_READ");
      if (req.customMetricId)
        throw new DomainError("resource-not-found", "custom metric not found");
      const empty = { monitors: [], page: { nextAfter: "" } };
      if ((req.type && req.type !== "TRACING") || req.performanceMetric || req.driftMetric)
        return empty;

      const rule = spaceRuleSql(p, "MONITOR_READ", "sf", 15, SPACE_FACTS("m.space_id"));
      const after = req.page?.after && isUuid(req.page.after) ? req.page.after : null;
      const res = await tracedQuery<MonitorRow>(
        pool,
        "list monitors",
        `select ${MONITOR_COLUMNS} from monitors m
          where m.account_id = $1
            and ($2::uuid[] is null or m.space_id = any($2))
            and ($3::uuid is null or m.project_id = $3)
            and ($4::text is null or exists (select 1 from projects pr
                                              where pr.id = m.project_id and pr.name = $4))
            and ($5::text is null or strpos(lower(m.name), lower($5)) > 0)
            and ($6::text is null or m.status = $6)
            and ($7::boolean is null or m.notifications_enabled = $7)
            and ($8::text is null or m.dimension_category = $8)
            and ($9::text is null or m.dimension_name = $9)
            and ($10::text is null or m.metric = $10)
            and ($11::uuid is null or m.id < $11)
            and ($12
                 -- a restricted project answers only to its own bindings
                 or case when exists (select 1 from restricted_projects r
                                       where r.project_id = m.project_id)
                         then m.project_id = any($14::uuid[])
                         else ${rule.sql} end)
          order by m.id desc
          limit $13`,
        [
          p.accountId,
          spaceIds,
          req.projectId || null,
          req.projectName || null,
          req.name || null,
          req.status || null,
          req.notificationsEnabled ?? null,
          req.dimensionCategory || null,
          req.dimensionName || null,
          req.dataQualityMetric || null,
          after,
          isAccountAdmin(p),
          fetchSize(req.page),
          grantedProjectIds(p, "MONITOR_READ"),
          ...rule.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "MONITOR_READ", (r) => ({
        spaceId: r.space_id,
        projectId: r.project_id,
      }));
      const urls = await channelUrls(pool, confirmed);
      return { monitors: confirmed.map((r) => toMonitor(r, urls)), page: { nextAfter } };
    },
  };
}
