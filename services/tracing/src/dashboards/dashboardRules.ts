// What a dashboard and its widgets may be, pure. A widget's metrics are checked by the same
// rules as a monitor's (monitorRules), so a plot and a monitor accept exactly the same.
import { LIMITS, textLength, type WidgetPlotSpec, type WidgetSpec } from "@argus/contracts";
import { DomainError, isUuid } from "@argus/platform";
import {
  checkDimension,
  checkFilters,
  checkMetric,
  checkMetricOver,
  unprocessable,
} from "../monitors/monitorRules.ts";

const WIDGET_TYPES = ["LINE_CHART", "STATISTIC", "TEXT"] as const;
/** The public API's widget types Argus does not draw. */
const OTHER_WIDGET_TYPES = ["BAR_CHART", "PIVOT_TABLE", "EXPERIMENT_CHART"];

export function checkDashboardName(name: string): string {
  if (name.trim() === "") throw unprocessable("name must not be empty");
  if (textLength(name) > LIMITS.DASHBOARD_NAME_MAX)
    throw unprocessable(`name must be at most ${LIMITS.DASHBOARD_NAME_MAX} characters`);
  return name;
}

export function checkDashboardDescription(description: string): string {
  if (textLength(description) > LIMITS.DASHBOARD_DESCRIPTION_MAX)
    throw unprocessable(
      `description must be at most ${LIMITS.DASHBOARD_DESCRIPTION_MAX} characters`,
    );
  return description;
}

/**
 * A plot (or a STATISTIC's metric), refused in the public API's widget field names: `model_id`,
 * `metric` (a STATISTIC's `aggregation`), `dimension_category`, `dimension_name`, and each
 * filter's `filter_type` and `dimension_name`.
 */
function checkPlot(p: WidgetPlotSpec, prefix: string, metricField: string): WidgetPlotSpec {
  if (!isUuid(p.project_id)) throw unprocessable(`${prefix}model_id must name a project`);
  const metric = checkMetric(p.metric, `${prefix}${metricField}`);
  const dimension = checkDimension(p.dimension, {
    category: `${prefix}dimension_category`,
    name: `${prefix}dimension_name`,
  });
  checkMetricOver(metric, dimension, prefix);
  if (p.title !== null && textLength(p.title) > LIMITS.WIDGET_TITLE_MAX)
    throw unprocessable(`${prefix}title must be at most ${LIMITS.WIDGET_TITLE_MAX} characters`);
  return {
    id: p.id,
    position: p.position,
    title: p.title,
    project_id: p.project_id,
    metric,
    dimension,
    filters: checkFilters(p.filters, `${prefix}filters`, (at) => ({
      category: `${at}.filter_type`,
      name: `${at}.dimension_name`,
    })),
  };
}

/** A widget's saved configuration, checked whole on every add and change. */
export function checkWidget(w: WidgetSpec): WidgetSpec {
  if (OTHER_WIDGET_TYPES.includes(w.type))
    throw unprocessable(
      `widgets of type ${w.type} are not supported: Argus draws ${WIDGET_TYPES.join(", ")}`,
    );
  if (!(WIDGET_TYPES as readonly string[]).includes(w.type))
    throw unprocessable(`type must be one of ${WIDGET_TYPES.join(", ")}`);
  if (textLength(w.title) > LIMITS.WIDGET_TITLE_MAX)
    throw unprocessable(`title must be at most ${LIMITS.WIDGET_TITLE_MAX} characters`);
  if (w.grid_position.length !== 4 || w.grid_position.some((n) => !Number.isInteger(n) || n < 0))
    throw unprocessable("grid_position must be 4 integers of at least 0 (x, y, width, height)");
  if (w.creation_status !== "DRAFT" && w.creation_status !== "PUBLISHED")
    throw unprocessable("creation_status must be DRAFT or PUBLISHED");
  const base = {
    type: w.type,
    title: w.title,
    grid_position: w.grid_position,
    creation_status: w.creation_status,
    widget_type: null,
    plots: [],
    monitor_id: null,
    statistic: null,
    custom_statistic_text: null,
    content: null,
    display: {},
  } satisfies WidgetSpec;
  switch (w.type) {
    case "TEXT":
      if (w.content === null) throw unprocessable("content is required for a TEXT widget");
      if (textLength(w.content) > LIMITS.WIDGET_TEXT_MAX)
        throw unprocessable(`content must be at most ${LIMITS.WIDGET_TEXT_MAX} characters`);
      return { ...base, content: w.content };
    case "STATISTIC":
      if (w.statistic === null)
        throw unprocessable("a STATISTIC widget needs model_id, aggregation and a dimension");
      if (
        w.custom_statistic_text !== null &&
        textLength(w.custom_statistic_text) > LIMITS.WIDGET_TITLE_MAX
      )
        throw unprocessable(
          `custom_statistic_text must be at most ${LIMITS.WIDGET_TITLE_MAX} characters`,
        );
      return {
        ...base,
        statistic: checkPlot(w.statistic, "", "aggregation"),
        custom_statistic_text: w.custom_statistic_text,
        display: w.display,
      };
    case "LINE_CHART": {
      const mode = w.widget_type ?? "LINE";
      if (mode === "MONITOR") {
        if (w.monitor_id === null)
          throw unprocessable("a LINE_CHART of widget_type MONITOR needs monitor_id");
        if (!isUuid(w.monitor_id)) throw unprocessable("monitor_id must name a monitor");
        if (w.plots.length > 0)
          throw unprocessable("a LINE_CHART of widget_type MONITOR draws its monitor: no plots");
        return { ...base, widget_type: mode, monitor_id: w.monitor_id, display: w.display };
      }
      if (mode !== "LINE")
        throw unprocessable(
          `widget_type ${String(mode)} is not supported: a LINE_CHART is LINE (plots) or MONITOR`,
        );
      if (w.plots.length === 0) throw unprocessable("a LINE_CHART needs at least 1 plot");
      if (w.plots.length > LIMITS.WIDGET_PLOTS_MAX)
        throw unprocessable(`plots must contain at most ${LIMITS.WIDGET_PLOTS_MAX} plots`);
      const ids = new Set(w.plots.map((p) => p.id));
      if (ids.size !== w.plots.length) throw unprocessable("plots must not repeat an id");
      return {
        ...base,
        widget_type: mode,
        plots: w.plots.map((p, i) => checkPlot(p, `plots[${i}].`, "metric")),
        display: w.display,
      };
    }
  }
}

/** The projects a widget draws from: when one is deleted, the widget goes with it. */
export const projectsOf = (w: WidgetSpec): string[] => [
  ...new Set([
    ...w.plots.map((p) => p.project_id),
    ...(w.statistic ? [w.statistic.project_id] : []),
  ]),
];

/** The range and width of a widget's data: at most WIDGET_POINTS_MAX points. */
export function seriesRange(
  start: Date,
  end: Date,
  granularitySeconds: number,
): { start: Date; end: Date; width: number; count: number } {
  const span = (end.getTime() - start.getTime()) / 1000;
  if (!(span > 0)) throw new DomainError("invalid-request", "start_time must be before end_time");
  const width = granularitySeconds > 0 ? granularitySeconds : Math.max(60, Math.ceil(span / 60));
  const count = Math.ceil(span / width);
  if (count > LIMITS.WIDGET_POINTS_MAX)
    throw unprocessable(
      `the range holds ${count} points of ${width} s; at most ${LIMITS.WIDGET_POINTS_MAX}: widen granularity_seconds`,
    );
  return { start, end: new Date(start.getTime() + count * width * 1000), width, count };
}
