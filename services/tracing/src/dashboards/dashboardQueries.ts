import { tracedQuery } from "@argus/eventstore";
import { DomainError, checkout, fetchSize, pageOf, type CallContext } from "@argus/platform";
import type {
  Dashboard,
  GetDashboardRequest,
  GetWidgetDataRequest,
  GetWidgetRequest,
  ListDashboardsRequest,
  ListDashboardsResponse,
  Widget,
  WidgetData,
  WidgetSeries,
} from "@argus/proto/tracing/v1/dashboards";
import type { WidgetPlotSpec } from "@argus/contracts";
import { authorized, confirmListed, isUuid, listableSpaces } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { measureSeries, measureWindow, type MetricSpec } from "../monitors/metricSql.ts";
import { resolvedMessage } from "../monitors/monitorMessages.ts";
import { resolveThreshold } from "../monitors/monitorRules.ts";
import { findMonitor, MONITOR_ACCESS, monitorPlaceOf } from "../monitors/monitorRows.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { isRfc3339 } from "../shared/tracingRules.ts";
import {
  DASHBOARD_ACCESS,
  DASHBOARD_COLUMNS,
  findDashboard,
  findWidget,
  toDashboard,
  toWidget,
  widgetsOf,
  type DashboardRow,
} from "./dashboardRows.ts";
import { seriesRange } from "./dashboardRules.ts";

const DAY_MS = 86_400_000;

function instant(value: string, field: string): Date {
  if (!isRfc3339(value))
    throw new DomainError("invalid-request", `${field} must be an ISO 8601 date-time`);
  return new Date(value);
}

export function dashboardQueries(deps: TracingDeps) {
  const { pool, spaces } = deps;
  const readable = async (ctx: CallContext, id: string) =>
    authorized(spaces, ctx, await findDashboard(pool, id), DASHBOARD_ACCESS);

  /** The metric's queries, none running past the service's statement timeout. */
  async function series(spec: MetricSpec, projectId: string, r: ReturnType<typeof seriesRange>) {
    const client = await checkout(pool);
    try {
      await client.query("begin read only");
      await client.query(`set local statement_timeout = ${deps.statementTimeoutMs}`);
      const points = await measureSeries(client, spec, projectId, r.start, r.width, r.count);
      await client.query("commit");
      return points;
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  const pointsOf = (r: ReturnType<typeof seriesRange>, values: { value: number | null }[]) =>
    values.map((v, i) => ({
      time: new Date(r.start.getTime() + i * r.width * 1000).toISOString(),
      ...(v.value === null ? {} : { value: v.value }),
    }));

  return {
    async getDashboard(req: GetDashboardRequest, ctx: CallContext): Promise<Dashboard> {
      const row = await readable(ctx, req.id);
      return toDashboard(row, await widgetsOf(pool, row.id));
    },

    async getWidget(req: GetWidgetRequest, ctx: CallContext): Promise<Widget> {
      const dashboard = await readable(ctx, req.dashboardId);
      return toWidget(await findWidget(pool, dashboard.id, req.widgetId));
    },

    /** A space's dashboards, newest first, without their widgets (get one for those). */
    async listDashboards(
      req: ListDashboardsRequest,
      ctx: CallContext,
    ): Promise<ListDashboardsResponse> {
      const readable = await listableSpaces(spaces, ctx, req, "DASHBOARD_READ", "d.space_id", 5);
      const after = req.page?.after && isUuid(req.page.after) ? req.page.after : null;
      const res = await tracedQuery<DashboardRow>(
        pool,
        "list dashboards",
        `select ${DASHBOARD_COLUMNS} from dashboards d
          where d.account_id = $1
            and ($2::text is null or strpos(lower(d.name), lower($2)) > 0)
            and ($3::uuid is null or d.id < $3)
            and ${readable.sql}
          order by d.id desc limit $4`,
        [ctx.principal.accountId, req.name || null, after, fetchSize(req.page), ...readable.params],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const confirmed = await confirmListed(spaces, ctx, items, "DASHBOARD_READ", (r) => ({
        spaceId: r.space_id,
      }));
      return { dashboards: confirmed.map((r) => toDashboard(r, [])), page: { nextAfter } };
    },

    /**
     * The numbers a widget draws over [start, end): each LINE_CHART plot (or its monitor's
     * metric) per interval, a STATISTIC's metric over the whole range. The caller reads the
     * dashboard and each project (or monitor) drawn; a restricted project's numbers are not
     * shown to whoever may not read it.
     */
    async getWidgetData(req: GetWidgetDataRequest, ctx: CallContext): Promise<WidgetData> {
      const dashboard = await readable(ctx, req.dashboardId);
      const widget = await findWidget(pool, dashboard.id, req.widgetId);
      const end = req.endTime ? instant(req.endTime, "end_time") : deps.clock.now();
      const start = req.startTime
        ? instant(req.startTime, "start_time")
        : new Date(end.getTime() - DAY_MS);
      const range = seriesRange(start, end, req.granularitySeconds);
      const answer: WidgetData = {
        widgetId: widget.id,
        startTime: range.start.toISOString(),
        endTime: range.end.toISOString(),
        granularitySeconds: range.width,
        series: [],
      };
      const s = widget.spec;
      const plotSeries = async (p: WidgetPlotSpec): Promise<WidgetSeries> => {
        await loadProject(deps, ctx, p.project_id, "PROJECT_READ");
        const values = await series(p, p.project_id, range);
        return {
          plotId: p.id,
          ...(p.title === null ? {} : { title: p.title }),
          points: pointsOf(range, values),
        };
      };
      if (s.type === "LINE_CHART" && s.widget_type === "MONITOR" && s.monitor_id) {
        const monitor = await authorized(
          spaces,
          ctx,
          await findMonitor(pool, s.monitor_id),
          MONITOR_ACCESS,
          undefined,
          monitorPlaceOf,
        );
        const m = monitor.settings;
        const values = await series(m, monitor.project_id, range);
        answer.series = [{ plotId: "monitor", title: m.name, points: pointsOf(range, values) }];
        // A manual threshold is drawn as it is; a dynamic one moves with the history.
        answer.threshold = resolvedMessage(
          m.threshold.type.startsWith("MANUAL")
            ? (resolveThreshold(m.threshold, []) ?? null)
            : null,
        );
      } else if (s.type === "LINE_CHART") {
        for (const p of s.plots) answer.series.push(await plotSeries(p));
      } else if (s.type === "STATISTIC" && s.statistic) {
        const p = s.statistic;
        await loadProject(deps, ctx, p.project_id, "PROJECT_READ");
        const measured = await measureWindow(pool, p, p.project_id, {
          start: range.start,
          end: range.end,
        });
        if (measured.value !== null) answer.value = measured.value;
      }
      return answer;
    },
  };
}
