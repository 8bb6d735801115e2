import type { Pool, PoolClient } from "pg";
import type { TracingMetric, WidgetPlotSpec, WidgetSpec, WidgetType } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, type ResourceAccess } from "@argus/platform";
import type { Dashboard, Widget, WidgetPlot } from "@argus/proto/tracing/v1/dashboards";
import { isUuid, type SpaceRow } from "@argus/spaces";
import {
  dimensionMessage,
  dimensionOf,
  filterMessage,
  filterOf,
} from "../monitors/monitorMessages.ts";

export const DASHBOARD_ACCESS = {
  label: "dashboard",
  read: "DASHBOARD_READ",
} as const satisfies ResourceAccess;

export interface DashboardRow extends SpaceRow {
  name: string;
  description: string;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export interface WidgetRow {
  id: string;
  dashboard_id: string;
  type: WidgetType;
  spec: WidgetSpec;
  creator_user_id: string;
  created_at: Date;
}

type Db = Pool | PoolClient;

const DASHBOARD_COLUMNS =
  "d.id, d.account_id, d.space_id, d.name, d.description, d.created_by_user_id, d.created_at, d.updated_at";
export { DASHBOARD_COLUMNS };

export async function findDashboard(db: Db, id: string): Promise<DashboardRow | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await tracedQuery<DashboardRow>(
    db,
    "get dashboard",
    `select ${DASHBOARD_COLUMNS} from dashboards d where d.id = $1`,
    [id],
  );
  return res.rows[0];
}

/** A dashboard's widgets in grid order: top to bottom, then left to right. */
export async function widgetsOf(db: Db, dashboardId: string): Promise<WidgetRow[]> {
  const res = await tracedQuery<WidgetRow>(
    db,
    "dashboard widgets",
    `select id, dashboard_id, type, spec, creator_user_id, created_at from dashboard_widgets
      where dashboard_id = $1
      order by (spec->'grid_position'->>1)::int, (spec->'grid_position'->>0)::int, id`,
    [dashboardId],
  );
  return res.rows;
}

export async function findWidget(
  db: Db,
  dashboardId: string,
  widgetId: string,
): Promise<WidgetRow> {
  const res = isUuid(widgetId)
    ? await tracedQuery<WidgetRow>(
        db,
        "get widget",
        `select id, dashboard_id, type, spec, creator_user_id, created_at from dashboard_widgets
          where id = $1 and dashboard_id = $2`,
        [widgetId, dashboardId],
      )
    : { rows: [] };
  const row = res.rows[0];
  if (!row) throw new DomainError("resource-not-found", "widget not found");
  return row;
}

const plotMessage = (p: WidgetPlotSpec): WidgetPlot => ({
  id: p.id,
  position: p.position,
  ...(p.title === null ? {} : { title: p.title }),
  projectId: p.project_id,
  metric: p.metric,
  dimension: dimensionMessage(p.dimension),
  filters: p.filters.map(filterMessage),
});

export function toWidget(r: WidgetRow): Widget {
  const s = r.spec;
  return {
    id: r.id,
    dashboardId: r.dashboard_id,
    type: s.type,
    title: s.title,
    gridPosition: s.grid_position,
    creationStatus: s.creation_status,
    createdAt: r.created_at.toISOString(),
    creatorUserId: r.creator_user_id,
    widgetType: s.widget_type ?? "",
    plots: s.plots.map(plotMessage),
    monitorId: s.monitor_id ?? "",
    statistic: s.statistic ? plotMessage(s.statistic) : undefined,
    ...(s.custom_statistic_text === null ? {} : { customStatisticText: s.custom_statistic_text }),
    ...(s.content === null ? {} : { content: s.content }),
    displayJson: JSON.stringify(s.display),
  };
}

export const toDashboard = (r: DashboardRow, widgets: readonly WidgetRow[]): Dashboard => ({
  id: r.id,
  spaceId: r.space_id,
  name: r.name,
  description: r.description,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  createdByUserId: r.created_by_user_id,
  widgets: widgets.map(toWidget),
});

const plotOf = (p: WidgetPlot, i: number, field: string, newId: () => string): WidgetPlotSpec => ({
  id: p.id || newId(),
  position: p.position || i,
  title: p.title ?? null,
  project_id: p.projectId,
  metric: p.metric as TracingMetric,
  dimension: dimensionOf(p.dimension, `${field}.dimension`),
  filters: p.filters.map((f, j) => filterOf(f, j, `${field}.filters`)),
});

/** A widget as a request gives it, as the decider's spec; the rules check every value. */
export function specOf(w: Widget | undefined, newId: () => string): WidgetSpec {
  if (!w) throw new DomainError("invalid-request", "widget is required");
  let display: Record<string, unknown> = {};
  if (w.displayJson) {
    const parsed: unknown = JSON.parse(w.displayJson);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      display = parsed as Record<string, unknown>;
  }
  return {
    type: w.type as WidgetType,
    title: w.title,
    grid_position: w.gridPosition.length > 0 ? w.gridPosition : [0, 0, 4, 3],
    creation_status: (w.creationStatus || "PUBLISHED") as WidgetSpec["creation_status"],
    widget_type:
      w.type === "LINE_CHART" ? ((w.widgetType || "LINE") as WidgetSpec["widget_type"]) : null,
    plots: w.plots.map((p, i) => plotOf(p, i, `plots[${i}]`, newId)),
    monitor_id: w.monitorId || null,
    statistic: w.statistic ? plotOf(w.statistic, 0, "statistic", newId) : null,
    custom_statistic_text: w.customStatisticText ?? null,
    content: w.content ?? null,
    display,
  };
}
