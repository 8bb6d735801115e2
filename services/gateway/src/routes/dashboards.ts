import { decodeId, DomainError, encodeId } from "@argus/platform";
import {
  DashboardServiceService,
  type Dashboard,
  type Widget,
  type WidgetData,
  type WidgetPlot,
} from "@argus/proto/tracing/v1/dashboards";
import type { MonitorFilter } from "@argus/proto/tracing/v1/monitors";
import type { Backend } from "../backend.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { pathId, spaceListQuery, utcInstant, utcText } from "./params.ts";
import { toPublicResolved } from "./monitors.ts";
import { listPage } from "./listPage.ts";

type Schemas = components["schemas"];
/** The public API's WidgetFilter: `filter_type` is the dimension's category. */
type WidgetFilterBody = Schemas["WidgetFilter"];
type WidgetPlotBody = Schemas["WidgetPlot"];
type WidgetBody = Schemas["WidgetInput"];

/** The saved display settings of a chart: stored and returned as given. */
const DISPLAY_FIELDS = [
  "y_min",
  "y_max",
  "y_axis_label",
  "x_axis_label",
  "x_axis_tilt",
  "font_size",
  "show_legend",
  "legend_placement",
  "timezone",
  "start_time",
  "end_time",
  "time_series_data_granularity",
  "overwrite_global_time",
  "time_range_key",
  "time_series_metric_type",
] as const satisfies readonly (keyof WidgetBody & keyof Schemas["ChartDisplay"])[];

/** A project id the service checks: one that is not a project's names none (422 there). */
const projectOf = (raw: string) => decodeId("Project", raw) ?? "";

const filterOf = (f: WidgetFilterBody): MonitorFilter => ({
  dimension: { category: f.filter_type, name: f.dimension_name },
  operator: f.operator,
  values: [...(f.dimension_values ?? []), ...(f.numeric_values ?? []).map(String)],
});

const plotOf = (p: WidgetPlotBody): WidgetPlot => ({
  id: p.id ?? "",
  position: p.position ?? 0,
  ...(p.title == null ? {} : { title: p.title }),
  projectId: projectOf(p.model_id),
  metric: p.metric,
  dimension: { category: p.dimension_category, name: p.dimension_name },
  filters: (p.filters ?? []).map(filterOf),
});

/**
 * A display instant is stored as sent (beside its `timezone`), so it must be one the clients
 * read back: a year 0000 or a leap second (RFC 3339 allows both) fails a Python `datetime`.
 */
function checkDisplayInstant(value: string | null | undefined, field: string): void {
  if (value == null) return;
  utcInstant(value, field);
  if (value.slice(17, 19) === "60") {
    throw new DomainError("invalid-request", `'${field}' must not be a leap second`);
  }
  if (value.startsWith("0000")) {
    throw new DomainError("invalid-request", `'${field}' must be in the years 0001-9999`);
  }
}

/** A widget as the service takes it; the service checks what the type needs. */
function widgetOf(b: WidgetBody): Widget {
  checkDisplayInstant(b.start_time, "start_time");
  checkDisplayInstant(b.end_time, "end_time");
  const display = Object.fromEntries(
    DISPLAY_FIELDS.filter((k) => b[k] !== undefined).map((k) => [k, b[k]]),
  );
  // A STATISTIC's metric is a plot without title and position; the service names what it lacks.
  const statistic: WidgetPlot | undefined =
    b.type === "STATISTIC" && b.model_id !== undefined
      ? {
          id: "",
          position: 0,
          projectId: projectOf(b.model_id),
          metric: b.aggregation ?? "",
          dimension: { category: b.dimension_category ?? "", name: b.dimension_name ?? "" },
          filters: (b.filters ?? []).map(filterOf),
        }
      : undefined;
  return {
    id: "",
    dashboardId: "",
    type: b.type,
    title: b.title ?? "",
    gridPosition: b.grid_position ?? [],
    creationStatus: b.creation_status ?? "",
    createdAt: "",
    creatorUserId: "",
    widgetType: b.widget_type ?? "",
    plots: (b.plots ?? []).map(plotOf),
    // One that is not a monitor's id names none: the service refuses it (422).
    monitorId:
      b.monitor_id === undefined ? "" : (decodeId("Monitor", b.monitor_id) ?? b.monitor_id),
    statistic,
    ...(b.custom_statistic_text == null ? {} : { customStatisticText: b.custom_statistic_text }),
    ...(b.content === undefined ? {} : { content: b.content }),
    displayJson: JSON.stringify(display),
  };
}

const toPublicFilter = (f: MonitorFilter) => ({
  filter_type: f.dimension?.category ?? "",
  dimension_name: f.dimension?.name ?? "",
  operator: f.operator,
  dimension_values: f.values,
});

const toPublicPlot = (p: WidgetPlot) => ({
  id: p.id,
  position: p.position,
  ...(p.title === undefined ? {} : { title: p.title }),
  model_id: encodeId("Project", p.projectId),
  metric: p.metric,
  dimension_category: p.dimension?.category ?? "",
  dimension_name: p.dimension?.name ?? "",
  filters: p.filters.map(toPublicFilter),
});

/** A widget as the public API answers it: its common fields, then its type's. */
function toPublicWidget(w: Widget) {
  const display = JSON.parse(w.displayJson || "{}") as Record<string, unknown>;
  const common = {
    id: encodeId("Widget", w.id),
    type: w.type,
    dashboard_id: encodeId("Dashboard", w.dashboardId),
    title: w.title,
    grid_position: w.gridPosition,
    creation_status: w.creationStatus,
    created_at: w.createdAt,
    ...(w.creatorUserId ? { creator_user_id: encodeId("User", w.creatorUserId) } : {}),
  };
  switch (w.type) {
    case "TEXT":
      return { ...common, content: w.content ?? "" };
    case "STATISTIC": {
      const s = w.statistic;
      return {
        ...common,
        ...display,
        model_id: encodeId("Project", s?.projectId ?? ""),
        aggregation: s?.metric ?? "",
        dimension_category: s?.dimension?.category ?? "",
        dimension_name: s?.dimension?.name ?? "",
        filters: (s?.filters ?? []).map(toPublicFilter),
        custom_statistic_text: w.customStatisticText ?? null,
      };
    }
    default:
      return {
        ...common,
        ...display,
        widget_type: w.widgetType,
        plots: w.plots.map(toPublicPlot),
        ...(w.monitorId ? { monitor_id: encodeId("Monitor", w.monitorId) } : {}),
      };
  }
}

const toPublicDashboard = (d: Dashboard) => ({
  id: encodeId("Dashboard", d.id),
  name: d.name,
  description: d.description,
  space_id: encodeId("Space", d.spaceId),
  ...(d.createdByUserId ? { created_by_user_id: encodeId("User", d.createdByUserId) } : {}),
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  widgets: d.widgets.map(toPublicWidget),
});

function toPublicData(d: WidgetData) {
  const threshold = toPublicResolved(d.threshold);
  return {
    widget_id: encodeId("Widget", d.widgetId),
    start_time: d.startTime,
    end_time: d.endTime,
    granularity_seconds: d.granularitySeconds,
    series: d.series.map((s) => ({
      plot_id: s.plotId,
      ...(s.title === undefined ? {} : { title: s.title }),
      points: s.points.map((p) => ({
        time: p.time,
        ...(p.value === undefined ? {} : { value: p.value }),
      })),
    })),
    ...(d.value === undefined ? {} : { value: d.value }),
    ...(threshold ? { threshold } : {}),
  };
}

const dashboardId = (req: { params: { dashboard_id: string } }) =>
  pathId("Dashboard", req.params.dashboard_id, "dashboard");
const widgetId = (req: { params: { widget_id: string } }) =>
  pathId("Widget", req.params.widget_id, "widget");

export function dashboardHandlers(tracing: Backend): ResourceHandlers<"dashboards"> {
  return {
    async list_dashboards(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("dashboards", []);
      const res = await tracing.call(DashboardServiceService.listDashboards, query, req);
      return listPage("dashboards", res.dashboards.map(toPublicDashboard), res.page);
    },

    async create_dashboard(req) {
      const body = req.body;
      const d = await tracing.call(
        DashboardServiceService.createDashboard,
        {
          spaceId: pathId("Space", body.space_id, "space"),
          name: body.name,
          description: body.description ?? "",
        },
        req,
      );
      return { status: 201, body: toPublicDashboard(d) };
    },

    async get_dashboard(req) {
      const d = await tracing.call(
        DashboardServiceService.getDashboard,
        { id: dashboardId(req) },
        req,
      );
      return { status: 200, body: toPublicDashboard(d) };
    },

    async update_dashboard(req) {
      const body = req.body;
      const d = await tracing.call(
        DashboardServiceService.updateDashboard,
        {
          id: dashboardId(req),
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.description === undefined ? {} : { description: body.description }),
        },
        req,
      );
      return { status: 200, body: toPublicDashboard(d) };
    },

    delete_dashboard: (req) =>
      noContent(
        tracing.call(DashboardServiceService.deleteDashboard, { id: dashboardId(req) }, req),
      ),

    async create_dashboard_widget(req) {
      const w = await tracing.call(
        DashboardServiceService.createWidget,
        { dashboardId: dashboardId(req), widget: widgetOf(req.body) },
        req,
      );
      return { status: 201, body: toPublicWidget(w) };
    },

    async get_dashboard_widget(req) {
      const w = await tracing.call(
        DashboardServiceService.getWidget,
        { dashboardId: dashboardId(req), widgetId: widgetId(req) },
        req,
      );
      return { status: 200, body: toPublicWidget(w) };
    },

    async update_dashboard_widget(req) {
      const w = await tracing.call(
        DashboardServiceService.updateWidget,
        {
          dashboardId: dashboardId(req),
          widgetId: widgetId(req),
          widget: widgetOf(req.body),
        },
        req,
      );
      return { status: 200, body: toPublicWidget(w) };
    },

    delete_dashboard_widget: (req) =>
      noContent(
        tracing.call(
          DashboardServiceService.deleteWidget,
          { dashboardId: dashboardId(req), widgetId: widgetId(req) },
          req,
        ),
      ),

    async get_dashboard_widget_data(req) {
      const q = req.query;
      const d = await tracing.call(
        DashboardServiceService.getWidgetData,
        {
          dashboardId: dashboardId(req),
          widgetId: widgetId(req),
          startTime: utcText(q.start_time, "start_time"),
          endTime: utcText(q.end_time, "end_time"),
          granularitySeconds: q.granularity_seconds ?? 0,
        },
        req,
      );
      return { status: 200, body: toPublicData(d) };
    },
  };
}
