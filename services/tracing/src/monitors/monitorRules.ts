// The rules of a TRACING monitor, pure: what its settings may be (with the public API's
// names in every refusal), how an evaluation is judged against its threshold, its downtime
// and its schedule. The decider, the commands, the scheduler and the dashboards' widgets all
// judge with these, so each rule is written once.
import {
  LIMITS,
  textLength,
  type FilterOperator,
  type MonitorChannel,
  type MonitorDimension,
  type MonitorDowntime,
  type MonitorFilter,
  type MonitorSchedule,
  type MonitorSettings,
  type MonitorStatus,
  type MonitorThreshold,
  type ResolvedThreshold,
  type ThresholdCalculation,
  type ThresholdOperator,
  type TracingDimensionCategory,
  type TracingMetric,
} from "@argus/contracts";
import { DomainError, isUuid } from "@argus/platform";

export const unprocessable = (detail: string): DomainError =>
  new DomainError("validation-error", detail);

const MONITOR_TYPES = ["DATA_QUALITY", "PERFORMANCE", "DRIFT", "CUSTOM_METRIC", "TRACING"] as const;

/** Metrics over numbers; the others (COUNT, PERCENT_EMPTY, CARDINALITY) take any value. */
const NUMERIC: readonly TracingMetric[] = [
  "AVG",
  "SUM",
  "STANDARD_DEVIATION",
  "P50",
  "P95",
  "P99",
  "P99_9",
];
const NUMERIC_METRICS: ReadonlySet<TracingMetric> = new Set(NUMERIC);
const METRICS: readonly TracingMetric[] = ["COUNT", "PERCENT_EMPTY", "CARDINALITY", ...NUMERIC];

const TRACING_CATEGORIES: readonly TracingDimensionCategory[] = [
  "SPAN_ATTRIBUTE",
  "LLM_EVAL",
  "USER_ANNOTATION",
];

/** The public API's DimensionCategory values that only models have. */
const MODEL_CATEGORIES = [
  "FEATURE_LABEL",
  "TAG",
  "MODEL_VERSION",
  "BATCH_ID",
  "ACTUALS",
  "ACTUALS_SCORE",
  "ACTUALS_CLASS",
  "PREDICTIONS",
  "PREDICTIONS_SCORE",
  "PREDICTIONS_CLASS",
];

const THRESHOLD_OPERATORS: readonly ThresholdOperator[] = [
  "GREATER_THAN",
  "GREATER_THAN_OR_EQUAL",
  "LESS_THAN",
  "LESS_THAN_OR_EQUAL",
  "EQUALS",
  "NOT_EQUALS",
];

const NUMERIC_FILTERS: ReadonlySet<string> = new Set([
  "GREATER_THAN",
  "GREATER_THAN_OR_EQUAL",
  "LESS_THAN",
  "LESS_THAN_OR_EQUAL",
]);
const FILTER_OPERATORS: readonly FilterOperator[] = [
  ...THRESHOLD_OPERATORS,
  "CONTAINS",
  "CONTAINS_STRING",
];
const isNumericFilter = (op: FilterOperator): boolean => NUMERIC_FILTERS.has(op);

/**
 * Span fields a SPAN_ATTRIBUTE dimension may name besides attribute keys, and whether each
 * is a number (the filter language's names: `@argus/filter` over spans).
 */
const SPAN_FIELDS: Readonly<Record<string, "number" | "text">> = {
  latency_ms: "number",
  name: "text",
  span_kind: "text",
  kind: "text",
  status_code: "text",
  status_message: "text",
  parent_id: "text",
  trace_id: "text",
  span_id: "text",
  "context.trace_id": "text",
  "context.span_id": "text",
};

/** Windows a dynamic threshold's baseline is computed over: the ones before the evaluated one. */
export const DYNAMIC_BASELINE_WINDOWS = 24;
/** Windows with data a dynamic threshold needs; fewer, and the evaluation is NO_DATA. */
const DYNAMIC_MIN_HISTORY = 3;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const isOneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === "string" && (list as readonly string[]).includes(v);

function integerIn(v: number, min: number, max: number, field: string): number {
  if (!Number.isInteger(v) || v < min || v > max)
    throw unprocessable(`${field} must be an integer from ${min} to ${max}`);
  return v;
}

function text(v: string, max: number, field: string, blank = false): string {
  if (!blank && v.trim() === "") throw unprocessable(`${field} must not be empty`);
  if (textLength(v) > max) throw unprocessable(`${field} must be at most ${max} characters`);
  return v;
}

/** The monitor type on create: only TRACING; the ML types are a clear 422. */
export function checkType(type: string | undefined): "TRACING" {
  if (type === undefined) throw unprocessable("type is required");
  if (type === "TRACING") return type;
  if (isOneOf(MONITOR_TYPES, type))
    throw unprocessable(
      `monitors of type ${type} are not supported: Argus has no ML models; only TRACING monitors (metrics of a project's spans) are`,
    );
  throw unprocessable(`type must be one of ${MONITOR_TYPES.join(", ")}`);
}

export function checkMetric(metric: string, field = "metric"): TracingMetric {
  if (!isOneOf(METRICS, metric))
    throw unprocessable(
      `${field} ${JSON.stringify(metric)} is not a tracing metric (one of ${METRICS.join(", ")})`,
    );
  return metric;
}

/** How a dimension's two fields are named in refusals: a monitor's, or a widget's. */
export type DimensionNames = { category: string; name: string };
const nested = (field: string): DimensionNames => ({
  category: `${field}.category`,
  name: `${field}.name`,
});

export function checkDimension(
  d: MonitorDimension,
  field: string | DimensionNames = "dimension",
): MonitorDimension {
  const names = typeof field === "string" ? nested(field) : field;
  if (!isOneOf(TRACING_CATEGORIES, d.category))
    throw unprocessable(
      MODEL_CATEGORIES.includes(d.category)
        ? `${names.category} ${d.category} is not allowed for TRACING monitors (it is a model's); use ${TRACING_CATEGORIES.join(", ")}`
        : `${names.category} must be one of ${TRACING_CATEGORIES.join(", ")}`,
    );
  text(d.name, LIMITS.MONITOR_DIMENSION_NAME_MAX, names.name);
  return { category: d.category, name: d.name };
}

/** A numeric metric over a span field that is text (status_code, name, ...) has no value. */
export function checkMetricOver(metric: TracingMetric, d: MonitorDimension, field = ""): void {
  if (
    NUMERIC_METRICS.has(metric) &&
    d.category === "SPAN_ATTRIBUTE" &&
    SPAN_FIELDS[d.name] === "text"
  )
    throw unprocessable(
      `${field}metric ${metric} needs a number, and the span field ${d.name} is text (COUNT, PERCENT_EMPTY and CARDINALITY take any value)`,
    );
}

export function checkFilters(
  filters: readonly MonitorFilter[],
  field = "filters",
  dimensionNames: (at: string) => DimensionNames = (at) => nested(`${at}.dimension`),
): MonitorFilter[] {
  if (filters.length > LIMITS.MONITOR_FILTERS_MAX)
    throw unprocessable(`${field} must contain at most ${LIMITS.MONITOR_FILTERS_MAX} filters`);
  return filters.map((f, i) => {
    const at = `${field}[${i}]`;
    const dimension = checkDimension(f.dimension, dimensionNames(at));
    if (f.operator === ("TOP_N" as string) || f.operator === ("SIMILAR_TO" as string))
      throw unprocessable(
        `${at}.operator ${f.operator} is not supported for TRACING monitors (one of ${FILTER_OPERATORS.join(", ")})`,
      );
    if (!isOneOf(FILTER_OPERATORS, f.operator))
      throw unprocessable(`${at}.operator must be one of ${FILTER_OPERATORS.join(", ")}`);
    if (f.values.length === 0) throw unprocessable(`${at}.values must contain at least 1 value`);
    if (f.values.length > LIMITS.MONITOR_FILTER_VALUES_MAX)
      throw unprocessable(
        `${at}.values must contain at most ${LIMITS.MONITOR_FILTER_VALUES_MAX} values`,
      );
    f.values.forEach((v, j) =>
      text(v, LIMITS.MONITOR_FILTER_VALUE_MAX, `${at}.values[${j}]`, true),
    );
    if (isNumericFilter(f.operator)) {
      if (f.values.length !== 1)
        throw unprocessable(`${at}.values must hold exactly one number for ${f.operator}`);
      if (!Number.isFinite(Number(f.values[0])) || f.values[0]!.trim() === "")
        throw unprocessable(`${at}.values[0] must be a number for ${f.operator}`);
    }
    return { dimension, operator: f.operator, values: [...f.values] };
  });
}

function finite(v: number, field: string): number {
  if (!Number.isFinite(v)) throw unprocessable(`${field} must be a finite number`);
  return v;
}

const LOWER_OPERATORS: readonly ThresholdOperator[] = ["GREATER_THAN", "GREATER_THAN_OR_EQUAL"];
const UPPER_OPERATORS: readonly ThresholdOperator[] = ["LESS_THAN", "LESS_THAN_OR_EQUAL"];

function operator(op: string, allowed: readonly ThresholdOperator[], field: string) {
  if (!isOneOf(allowed, op)) throw unprocessable(`${field} must be one of ${allowed.join(", ")}`);
  return op;
}

function multiplier(m: number, field: string): number {
  if (!Number.isFinite(m) || m <= 0 || m > LIMITS.MONITOR_MULTIPLIER_MAX)
    throw unprocessable(`${field} must be above 0 and at most ${LIMITS.MONITOR_MULTIPLIER_MAX}`);
  return m;
}

function calculation(c: string): ThresholdCalculation {
  if (c !== "STDEV" && c !== "MAD")
    throw unprocessable("threshold.calculation must be STDEV or MAD");
  return c;
}

function checkThreshold(t: MonitorThreshold): MonitorThreshold {
  switch (t.type) {
    case "MANUAL_SINGLE":
      return {
        type: t.type,
        operator: operator(t.operator, THRESHOLD_OPERATORS, "threshold.operator"),
        value: finite(t.value, "threshold.value"),
      };
    case "MANUAL_RANGE": {
      const lower = {
        operator: operator(t.lower.operator, LOWER_OPERATORS, "threshold.lower.operator"),
        value: finite(t.lower.value, "threshold.lower.value"),
      };
      const upper = {
        operator: operator(t.upper.operator, UPPER_OPERATORS, "threshold.upper.operator"),
        value: finite(t.upper.value, "threshold.upper.value"),
      };
      if (lower.value > upper.value)
        throw unprocessable(
          `threshold.lower.value (${lower.value}) must not be above threshold.upper.value (${upper.value})`,
        );
      if (
        lower.value === upper.value &&
        (lower.operator === "GREATER_THAN" || upper.operator === "LESS_THAN")
      )
        throw unprocessable(
          "threshold range is empty: with equal bounds both operators must be inclusive (_OR_EQUAL)",
        );
      return { type: t.type, lower, upper };
    }
    case "DYNAMIC_SINGLE":
      return {
        type: t.type,
        calculation: calculation(t.calculation),
        // A derived threshold bounds the metric above or below; equality with it means nothing.
        operator: operator(
          t.operator,
          [...LOWER_OPERATORS, ...UPPER_OPERATORS],
          "threshold.operator (of a dynamic threshold)",
        ),
        multiplier: multiplier(t.multiplier, "threshold.multiplier"),
      };
    case "DYNAMIC_RANGE":
      return {
        type: t.type,
        calculation: calculation(t.calculation),
        lower: {
          operator: operator(t.lower.operator, LOWER_OPERATORS, "threshold.lower.operator"),
          multiplier: multiplier(t.lower.multiplier, "threshold.lower.multiplier"),
        },
        upper: {
          operator: operator(t.upper.operator, UPPER_OPERATORS, "threshold.upper.operator"),
          multiplier: multiplier(t.upper.multiplier, "threshold.upper.multiplier"),
        },
      };
    default:
      throw unprocessable(
        "threshold.type must be one of MANUAL_SINGLE, MANUAL_RANGE, DYNAMIC_SINGLE, DYNAMIC_RANGE",
      );
  }
}

function checkChannels(channels: readonly MonitorChannel[]): MonitorChannel[] {
  if (channels.length > LIMITS.MONITOR_CHANNELS_MAX)
    throw unprocessable(
      `notification_configs must contain at most ${LIMITS.MONITOR_CHANNELS_MAX} channels`,
    );
  const seen = new Set<string>();
  return channels.map((c, i) => {
    const at = `notification_configs[${i}]`;
    let key: string;
    let checked: MonitorChannel;
    switch (c.type) {
      case "EMAIL":
        text(c.email_address, LIMITS.MONITOR_EMAIL_MAX, `${at}.email_address`);
        if (!EMAIL.test(c.email_address))
          throw unprocessable(`${at}.email_address must be an e-mail address`);
        key = `EMAIL:${c.email_address.toLowerCase()}`;
        checked = { type: c.type, email_address: c.email_address };
        break;
      case "INTEGRATION":
        if (!isUuid(c.integration_id))
          throw unprocessable(`${at}.integration_id must be an integration id`);
        key = `INTEGRATION:${c.integration_id}`;
        checked = { type: c.type, integration_id: c.integration_id };
        break;
      case "WEBHOOK":
        if (!isUuid(c.webhook_id)) throw unprocessable(`${at}.id must be a webhook id`);
        key = `WEBHOOK:${c.webhook_id}`;
        checked = { type: c.type, webhook_id: c.webhook_id };
        break;
      default:
        throw unprocessable(`${at}.type must be one of EMAIL, INTEGRATION, WEBHOOK`);
    }
    if (seen.has(key)) throw unprocessable(`${at} names a channel given before`);
    seen.add(key);
    return checked;
  });
}

const isInstant = (s: string) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s));

function checkDowntime(d: MonitorDowntime): MonitorDowntime {
  if (!isInstant(d.start)) throw unprocessable("downtime.start must be an ISO 8601 date-time");
  const frequency = d.frequency_days;
  if (frequency !== null)
    integerIn(frequency, 1, LIMITS.MONITOR_DOWNTIME_FREQUENCY_DAYS_MAX, "downtime.frequency_days");
  // A repeating downtime lasts at most its period; a single one at most the longest period.
  const longest = (frequency ?? LIMITS.MONITOR_DOWNTIME_FREQUENCY_DAYS_MAX) * 86_400;
  integerIn(d.duration_seconds, 1, longest, "downtime.duration_seconds");
  return {
    start: new Date(d.start).toISOString(),
    duration_seconds: d.duration_seconds,
    frequency_days: frequency,
  };
}

function checkSchedule(s: MonitorSchedule): MonitorSchedule {
  if (s.cadence_seconds !== null)
    integerIn(
      s.cadence_seconds,
      LIMITS.MONITOR_CADENCE_SECONDS_MIN,
      LIMITS.MONITOR_CADENCE_SECONDS_MAX,
      "scheduled_runtime.cadence_seconds",
    );
  const days = s.days_of_week;
  days.forEach((d, i) => integerIn(d, 0, 6, `scheduled_runtime.days_of_week[${i}]`));
  if (new Set(days).size !== days.length)
    throw unprocessable("scheduled_runtime.days_of_week must not repeat a day");
  return {
    enabled: s.enabled,
    cadence_seconds: s.cadence_seconds,
    days_of_week: [...days].sort((a, b) => a - b),
  };
}

/** A monitor's settings checked whole (every create and update), in the API's field names. */
export function checkSettings(s: MonitorSettings): MonitorSettings {
  const metric = checkMetric(s.metric);
  const dimension = checkDimension(s.dimension);
  checkMetricOver(metric, dimension);
  return {
    name: text(s.name, LIMITS.MONITOR_NAME_MAX, "name"),
    notes: s.notes === null ? null : text(s.notes, LIMITS.MONITOR_NOTES_MAX, "notes", true),
    metric,
    dimension,
    filters: checkFilters(s.filters),
    threshold: checkThreshold(s.threshold),
    notifications_enabled: s.notifications_enabled,
    manual_evaluation_enabled: s.manual_evaluation_enabled,
    channels: checkChannels(s.channels),
    downtime: s.downtime === null ? null : checkDowntime(s.downtime),
    schedule: s.schedule === null ? null : checkSchedule(s.schedule),
    window_seconds: integerIn(
      s.window_seconds,
      LIMITS.MONITOR_WINDOW_SECONDS_MIN,
      LIMITS.MONITOR_WINDOW_SECONDS_MAX,
      "evaluation_window_length_seconds",
    ),
    delay_seconds: integerIn(s.delay_seconds, 0, LIMITS.MONITOR_DELAY_SECONDS_MAX, "delay_seconds"),
  };
}

/** What a create or an update gives: present keys replace, `null` clears what may be unset. */
export type MonitorChanges = Partial<MonitorSettings>;

/** Defaults of what a create leaves out: an hour's window, no delay, notifications on. */
const DEFAULT_SETTINGS = {
  notes: null,
  filters: [],
  notifications_enabled: true,
  manual_evaluation_enabled: false,
  channels: [],
  downtime: null,
  schedule: null,
  window_seconds: 3600,
  delay_seconds: 0,
} as const satisfies Partial<MonitorSettings>;

/** The settings of a new monitor: the required fields named when missing, then checked whole. */
export function settingsOfCreate(c: MonitorChanges): MonitorSettings {
  for (const field of ["name", "metric", "dimension", "threshold"] as const)
    if (c[field] === undefined) throw unprocessable(`${field} is required`);
  return checkSettings({ ...DEFAULT_SETTINGS, ...c } as MonitorSettings);
}

// ---- Judging an evaluation ----

const holds = (value: number, op: ThresholdOperator, bound: number): boolean => {
  switch (op) {
    case "GREATER_THAN":
      return value > bound;
    case "GREATER_THAN_OR_EQUAL":
      return value >= bound;
    case "LESS_THAN":
      return value < bound;
    case "LESS_THAN_OR_EQUAL":
      return value <= bound;
    case "EQUALS":
      return value === bound;
    case "NOT_EQUALS":
      return value !== bound;
  }
};

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The centre and spread of a dynamic threshold's baseline: mean and (population) standard
 * deviation for STDEV, median and median absolute deviation for MAD.
 */
export function baselineOf(
  calculation: ThresholdCalculation,
  values: readonly number[],
): { center: number; deviation: number } {
  if (calculation === "STDEV") {
    const m = mean(values);
    return { center: m, deviation: Math.sqrt(mean(values.map((v) => (v - m) ** 2))) };
  }
  const m = median(values);
  return { center: m, deviation: median(values.map((v) => Math.abs(v - m))) };
}

/**
 * The bounds an evaluation is judged against: a manual threshold's own, a dynamic one's from
 * the metric's values over the windows before (`baseline`; undefined when there are fewer than
 * DYNAMIC_MIN_HISTORY of them). A dynamic bound above the metric is centre + multiplier ×
 * spread (GREATER_* operators, an upper bound), one below is centre − multiplier × spread.
 */
export function resolveThreshold(
  t: MonitorThreshold,
  baseline: readonly number[],
): ResolvedThreshold | undefined {
  const none = { lower: null, upper: null, single: null };
  switch (t.type) {
    case "MANUAL_SINGLE":
      return { ...none, single: { operator: t.operator, value: t.value } };
    case "MANUAL_RANGE":
      return { ...none, lower: t.lower, upper: t.upper };
    case "DYNAMIC_SINGLE":
    case "DYNAMIC_RANGE": {
      if (baseline.length < DYNAMIC_MIN_HISTORY) return undefined;
      const { center, deviation } = baselineOf(t.calculation, baseline);
      if (t.type === "DYNAMIC_SINGLE") {
        const above = t.operator === "GREATER_THAN" || t.operator === "GREATER_THAN_OR_EQUAL";
        const value = center + (above ? 1 : -1) * t.multiplier * deviation;
        return { ...none, single: { operator: t.operator, value } };
      }
      return {
        ...none,
        lower: { operator: t.lower.operator, value: center - t.lower.multiplier * deviation },
        upper: { operator: t.upper.operator, value: center + t.upper.multiplier * deviation },
      };
    }
  }
}

/**
 * A single threshold triggers when the metric meets it (`value OPERATOR threshold`); a range
 * holds the healthy values (`value LOWER_OP lower` and `value UPPER_OP upper`) and triggers
 * when the metric leaves it.
 */
export function judge(value: number, t: ResolvedThreshold): "TRIGGERED" | "CLEARED" {
  if (t.single) return holds(value, t.single.operator, t.single.value) ? "TRIGGERED" : "CLEARED";
  const inside =
    (!t.lower || holds(value, t.lower.operator, t.lower.value)) &&
    (!t.upper || holds(value, t.upper.operator, t.upper.value));
  return inside ? "CLEARED" : "TRIGGERED";
}

/** The result of one evaluation, as its history row and the decider read it. */
export interface Outcome {
  status: MonitorStatus;
  value: number | null;
  threshold: ResolvedThreshold | null;
  inDowntime: boolean;
  /** Why NO_DATA (or the downtime), for the history; "" otherwise. */
  reason: string;
}

/** What the metric's queries found for the window (and the windows before, when dynamic). */
export interface Measured {
  /** Spans in the window, before filters: none at all is NO_DATA whatever the metric. */
  spans: number;
  value: number | null;
  baseline: readonly number[];
}

/** Judges one evaluation of `settings` at `at` on what was measured. */
export function assess(settings: MonitorSettings, measured: Measured, at: Date): Outcome {
  const inDowntime = settings.downtime !== null && isInDowntime(settings.downtime, at);
  const base = { inDowntime, reason: inDowntime ? "in a downtime window: the status is kept" : "" };
  if (measured.spans === 0)
    return {
      ...base,
      status: "NO_DATA",
      value: null,
      threshold: null,
      reason: base.reason || "no spans in the window",
    };
  if (measured.value === null)
    return {
      ...base,
      status: "NO_DATA",
      value: null,
      threshold: null,
      reason:
        base.reason ||
        `no ${NUMERIC_METRICS.has(settings.metric) ? "numeric " : ""}values of ${settings.dimension.name} in the window`,
    };
  const threshold = resolveThreshold(settings.threshold, measured.baseline);
  if (!threshold)
    return {
      ...base,
      status: "NO_DATA",
      value: measured.value,
      threshold: null,
      reason:
        base.reason ||
        `a dynamic threshold needs the metric in ${DYNAMIC_MIN_HISTORY} of the ${DYNAMIC_BASELINE_WINDOWS} windows before; ${measured.baseline.length} had data`,
    };
  return { ...base, status: judge(measured.value, threshold), value: measured.value, threshold };
}

// ---- Time: windows, downtime, schedule ----

/** The window evaluated at `at`: `window_seconds` long, ending `delay_seconds` before `at`. */
export function windowAt(
  s: Pick<MonitorSettings, "window_seconds" | "delay_seconds">,
  at: Date,
): { start: Date; end: Date } {
  const end = new Date(at.getTime() - s.delay_seconds * 1000);
  return { start: new Date(end.getTime() - s.window_seconds * 1000), end };
}

/** Whether `at` falls in the downtime: from `start` for `duration_seconds`, every `frequency_days`. */
export function isInDowntime(d: MonitorDowntime, at: Date): boolean {
  const since = at.getTime() - Date.parse(d.start);
  if (since < 0) return false;
  const period = d.frequency_days === null ? Infinity : d.frequency_days * 86_400_000;
  return since % period < d.duration_seconds * 1000;
}

/** Whether the schedule evaluates the monitor (not a manual one, not switched off). */
const isScheduled = (s: Pick<MonitorSettings, "manual_evaluation_enabled" | "schedule">): boolean =>
  !s.manual_evaluation_enabled && (s.schedule?.enabled ?? true);

/** Seconds between two scheduled evaluations: the schedule's, else the window's length. */
const cadenceOf = (s: Pick<MonitorSettings, "schedule" | "window_seconds">): number =>
  s.schedule?.cadence_seconds ?? s.window_seconds;

const DAY = 86_400_000;

/**
 * When the schedule next evaluates after a run that was due at `due`, judged at `now`: one
 * cadence later, and when that has passed already (the service was down, or slow), the first
 * such step after `now` — missed windows are never evaluated one by one, so a monitor catches
 * up with ONE evaluation however long the outage was. On days not in `days_of_week` (UTC) it
 * waits for the next listed day. `floorSeconds` is the deployment's shortest cadence.
 * null: not scheduled.
 */
export function nextRunAfter(
  s: Pick<MonitorSettings, "manual_evaluation_enabled" | "schedule" | "window_seconds">,
  due: Date,
  now: Date,
  floorSeconds: number,
): Date | null {
  if (!isScheduled(s)) return null;
  const step = Math.max(cadenceOf(s), floorSeconds) * 1000;
  let next = due.getTime() + step;
  if (next <= now.getTime()) next += Math.ceil((now.getTime() - next + 1) / step) * step;
  const days = s.schedule?.days_of_week ?? [];
  if (days.length === 0) return new Date(next);
  for (let i = 0; i < 8; i++) {
    const at = new Date(next);
    if (days.includes(at.getUTCDay())) return at;
    // The start of the next day, UTC.
    next = Math.floor(next / DAY) * DAY + DAY;
  }
  return new Date(next);
}

/** The first scheduled run of a monitor made (or rescheduled) at `at`: right away. */
export const firstRunAt = (
  s: Pick<MonitorSettings, "manual_evaluation_enabled" | "schedule">,
  at: Date,
): Date | null => (isScheduled(s) ? at : null);

// ---- Notifications ----

export interface NotificationOutcome {
  type: MonitorChannel["type"];
  target: string;
  state: "QUEUED" | "NOT_SENT";
  reason: string;
}

/**
 * What becomes of each channel when a transition notifies: webhooks are delivered (their
 * delivery log says how it went); e-mail and integration channels are kept and listed, but
 * Argus has no sender for them yet, so they are recorded as not sent, with the reason.
 */
export function notificationsOf(channels: readonly MonitorChannel[]): NotificationOutcome[] {
  return channels.map((c) => {
    switch (c.type) {
      case "WEBHOOK":
        return { type: c.type, target: c.webhook_id, state: "QUEUED", reason: "" };
      case "EMAIL":
        return {
          type: c.type,
          target: c.email_address,
          state: "NOT_SENT",
          reason: "Argus has no e-mail channel yet: only WEBHOOK channels are delivered",
        };
      case "INTEGRATION":
        return {
          type: c.type,
          target: c.integration_id,
          state: "NOT_SENT",
          reason: "Argus has no integration channel yet: only WEBHOOK channels are delivered",
        };
    }
  });
}
