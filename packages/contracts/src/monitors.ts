/**
 * The tracing service's monitors and dashboards (`<root>.tracing.monitor.<Type>`,
 * `<root>.tracing.dashboard.<Type>`). A monitor's settings travel whole in its created and
 * updated events; its evaluations are rows of the service (the evaluation history), and only
 * a change of its status is an event (`MonitorStatusChanged`), which the webhook dispatcher
 * turns into deliveries to the monitor's webhook channels.
 */

export type MonitorStatus = "TRIGGERED" | "CLEARED" | "NO_DATA";

/** The public API's TracingDataQualityMetric: what a TRACING monitor computes. */
export type TracingMetric =
  | "COUNT"
  | "PERCENT_EMPTY"
  | "CARDINALITY"
  | "AVG"
  | "SUM"
  | "STANDARD_DEVIATION"
  | "P50"
  | "P95"
  | "P99"
  | "P99_9";

/** The dimension categories a TRACING monitor may compute over or filter on. */
export type TracingDimensionCategory = "SPAN_ATTRIBUTE" | "LLM_EVAL" | "USER_ANNOTATION";

export type ThresholdOperator =
  | "GREATER_THAN"
  | "GREATER_THAN_OR_EQUAL"
  | "LESS_THAN"
  | "LESS_THAN_OR_EQUAL"
  | "EQUALS"
  | "NOT_EQUALS";

export type FilterOperator = ThresholdOperator | "CONTAINS" | "CONTAINS_STRING";

export interface MonitorDimension {
  category: TracingDimensionCategory;
  name: string;
}

export interface MonitorFilter {
  dimension: MonitorDimension;
  operator: FilterOperator;
  values: string[];
}

export type ThresholdCalculation = "STDEV" | "MAD";

/** The public API's ThresholdConfig, one of four shapes told apart by `type`. */
export type MonitorThreshold =
  | { type: "MANUAL_SINGLE"; operator: ThresholdOperator; value: number }
  | {
      type: "MANUAL_RANGE";
      lower: { operator: ThresholdOperator; value: number };
      upper: { operator: ThresholdOperator; value: number };
    }
  | {
      type: "DYNAMIC_SINGLE";
      calculation: ThresholdCalculation;
      operator: ThresholdOperator;
      multiplier: number;
    }
  | {
      type: "DYNAMIC_RANGE";
      calculation: ThresholdCalculation;
      lower: { operator: ThresholdOperator; multiplier: number };
      upper: { operator: ThresholdOperator; multiplier: number };
    };

/** Where a monitor's notifications go; only WEBHOOK channels are delivered (for now). */
export type MonitorChannel =
  | { type: "EMAIL"; email_address: string }
  | { type: "INTEGRATION"; integration_id: string }
  | { type: "WEBHOOK"; webhook_id: string };

/** A window in which the monitor is not evaluated on its schedule and never transitions. */
export interface MonitorDowntime {
  start: string;
  duration_seconds: number;
  /** Repeats every so many days; null: once. */
  frequency_days: number | null;
}

export interface MonitorSchedule {
  enabled: boolean;
  /** null: the monitor's default cadence (its window length). */
  cadence_seconds: number | null;
  /** 0 = Sunday … 6 = Saturday (UTC); empty: every day. */
  days_of_week: number[];
}

/** A monitor's changeable settings, whole in every created and updated event. */
export interface MonitorSettings {
  name: string;
  notes: string | null;
  metric: TracingMetric;
  dimension: MonitorDimension;
  filters: MonitorFilter[];
  threshold: MonitorThreshold;
  notifications_enabled: boolean;
  manual_evaluation_enabled: boolean;
  channels: MonitorChannel[];
  downtime: MonitorDowntime | null;
  schedule: MonitorSchedule | null;
  window_seconds: number;
  delay_seconds: number;
}

export interface MonitorCreated {
  type: "MonitorCreated";
  data: MonitorSettings & {
    id: string;
    account_id: string;
    organization_id: string;
    space_id: string;
    project_id: string;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface MonitorUpdated {
  type: "MonitorUpdated";
  data: MonitorSettings & { id: string; project_id: string; space_id: string; updated_at: string };
}

/** Deleted by a caller, or with its project, space or (its channel only) webhook. */
export interface MonitorDeleted {
  type: "MonitorDeleted";
  data: { id: string; project_id: string; space_id: string; deleted_at: string };
}

/** The bounds an evaluation was judged against (a dynamic threshold's as computed). */
export interface ResolvedThreshold {
  lower: { operator: ThresholdOperator; value: number } | null;
  upper: { operator: ThresholdOperator; value: number } | null;
  /** MANUAL_SINGLE and DYNAMIC_SINGLE: the one comparison that triggers. */
  single: { operator: ThresholdOperator; value: number } | null;
}

/**
 * The monitor's status changed on an evaluation. `notify` says whether its channels are told:
 * notifications enabled, and the change is to TRIGGERED or back to CLEARED from an alert.
 * The channels are the monitor's as of the version the change was appended at.
 */
export interface MonitorStatusChanged {
  type: "MonitorStatusChanged";
  data: {
    id: string;
    account_id: string;
    organization_id: string;
    space_id: string;
    project_id: string;
    name: string;
    metric: TracingMetric;
    dimension: MonitorDimension;
    previous_status: MonitorStatus;
    status: MonitorStatus;
    value: number | null;
    threshold: ResolvedThreshold | null;
    window_start: string;
    window_end: string;
    evaluated_at: string;
    evaluation_id: string;
    notify: boolean;
    channels: MonitorChannel[];
  };
}

export type MonitorEvent = MonitorCreated | MonitorUpdated | MonitorDeleted | MonitorStatusChanged;

export type WidgetType = "LINE_CHART" | "STATISTIC" | "TEXT";

/** A series of a LINE_CHART (or the one value of a STATISTIC): a metric of a project's spans. */
export interface WidgetPlotSpec {
  id: string;
  position: number;
  title: string | null;
  project_id: string;
  metric: TracingMetric;
  dimension: MonitorDimension;
  filters: MonitorFilter[];
}

export interface WidgetSpec {
  type: WidgetType;
  title: string;
  /** x, y, width, height in grid cells. */
  grid_position: number[];
  creation_status: "DRAFT" | "PUBLISHED";
  /** LINE_CHART: `LINE` (plots) or `MONITOR` (a monitor's metric and threshold). */
  widget_type: "LINE" | "MONITOR" | null;
  plots: WidgetPlotSpec[];
  monitor_id: string | null;
  /** STATISTIC: its one metric (a plot without title and position). */
  statistic: WidgetPlotSpec | null;
  custom_statistic_text: string | null;
  /** TEXT. */
  content: string | null;
  /** Saved display settings of a chart, stored and returned as given, never interpreted. */
  display: Record<string, unknown>;
}

export interface DashboardCreated {
  type: "DashboardCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    description: string;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface DashboardUpdated {
  type: "DashboardUpdated";
  data: { id: string; space_id: string; name: string; description: string; updated_at: string };
}

export interface DashboardDeleted {
  type: "DashboardDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export interface WidgetAdded {
  type: "WidgetAdded";
  data: WidgetSpec & {
    id: string;
    dashboard_id: string;
    creator_user_id: string;
    created_at: string;
  };
}

export interface WidgetChanged {
  type: "WidgetChanged";
  data: WidgetSpec & { id: string; dashboard_id: string; updated_at: string };
}

export interface WidgetRemoved {
  type: "WidgetRemoved";
  data: { id: string; dashboard_id: string; removed_at: string };
}

export type DashboardEvent =
  | DashboardCreated
  | DashboardUpdated
  | DashboardDeleted
  | WidgetAdded
  | WidgetChanged
  | WidgetRemoved;
