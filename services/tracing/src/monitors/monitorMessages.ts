// The gRPC messages of monitors and their domain shapes (@argus/contracts), both ways. The
// messages carry enum-like values as the public API spells them; the rules check them.
import type {
  FilterOperator,
  MonitorChannel,
  MonitorDimension,
  MonitorFilter,
  MonitorSettings,
  MonitorThreshold,
  ResolvedThreshold,
  ThresholdCalculation,
  ThresholdOperator,
  TracingDimensionCategory,
  TracingMetric,
} from "@argus/contracts";
import type {
  Dimension,
  MonitorFields,
  MonitorFilter as FilterMessage,
  NotificationChannel,
  ResolvedThreshold as ResolvedMessage,
  Threshold,
} from "@argus/proto/tracing/v1/monitors";
import { unprocessable, type MonitorChanges } from "./monitorRules.ts";

// The rules check every value; these casts only give the strings their names.
const asOperator = (v: string) => v as ThresholdOperator;

export const dimensionOf = (d: Dimension | undefined, field: string): MonitorDimension => {
  if (!d) throw unprocessable(`${field} is required`);
  return { category: d.category as TracingDimensionCategory, name: d.name };
};

export const filterOf = (f: FilterMessage, i: number, field = "filters"): MonitorFilter => ({
  dimension: dimensionOf(f.dimension, `${field}[${i}].dimension`),
  operator: f.operator as FilterOperator,
  values: f.values,
});

function thresholdOf(t: Threshold): MonitorThreshold {
  const bound = (b: Threshold["lower"], which: string) => {
    if (!b) throw unprocessable(`threshold.${which} is required for a ${t.type} threshold`);
    return b;
  };
  const calculation = t.calculation as ThresholdCalculation;
  switch (t.type) {
    case "MANUAL_SINGLE":
      return { type: t.type, operator: asOperator(t.operator), value: t.value };
    case "MANUAL_RANGE": {
      const [lower, upper] = [bound(t.lower, "lower"), bound(t.upper, "upper")];
      return {
        type: t.type,
        lower: { operator: asOperator(lower.operator), value: lower.value },
        upper: { operator: asOperator(upper.operator), value: upper.value },
      };
    }
    case "DYNAMIC_SINGLE":
      return {
        type: t.type,
        calculation,
        operator: asOperator(t.operator),
        multiplier: t.multiplier,
      };
    case "DYNAMIC_RANGE": {
      const [lower, upper] = [bound(t.lower, "lower"), bound(t.upper, "upper")];
      return {
        type: t.type,
        calculation,
        lower: { operator: asOperator(lower.operator), multiplier: lower.multiplier },
        upper: { operator: asOperator(upper.operator), multiplier: upper.multiplier },
      };
    }
    default:
      // The rules name the accepted types.
      return { type: t.type } as unknown as MonitorThreshold;
  }
}

function channelOf(c: NotificationChannel): MonitorChannel {
  switch (c.type) {
    case "EMAIL":
      return { type: "EMAIL", email_address: c.emailAddress };
    case "INTEGRATION":
      return { type: "INTEGRATION", integration_id: c.integrationId };
    case "WEBHOOK":
      return { type: "WEBHOOK", webhook_id: c.webhookId };
    default:
      return { type: c.type } as unknown as MonitorChannel;
  }
}

/** What a request gives, as the decider's changes (absent: default or unchanged). */
export function changesOf(f: MonitorFields | undefined): MonitorChanges {
  const c: MonitorChanges = {};
  if (!f) return c;
  if (f.name !== undefined) c.name = f.name;
  if (f.clearNotes) c.notes = null;
  else if (f.notes !== undefined) c.notes = f.notes;
  if (f.metric !== undefined) c.metric = f.metric as TracingMetric;
  if (f.dimension) c.dimension = dimensionOf(f.dimension, "dimension");
  if (f.filters) c.filters = f.filters.items.map((x, i) => filterOf(x, i));
  if (f.threshold) c.threshold = thresholdOf(f.threshold);
  if (f.notificationsEnabled !== undefined) c.notifications_enabled = f.notificationsEnabled;
  if (f.manualEvaluationEnabled !== undefined)
    c.manual_evaluation_enabled = f.manualEvaluationEnabled;
  if (f.channels) c.channels = f.channels.items.map(channelOf);
  if (f.clearDowntime) c.downtime = null;
  else if (f.downtime)
    c.downtime = {
      start: f.downtime.start,
      duration_seconds: f.downtime.durationSeconds,
      frequency_days: f.downtime.frequencyDays === 0 ? null : f.downtime.frequencyDays,
    };
  if (f.clearSchedule) c.schedule = null;
  else if (f.schedule)
    c.schedule = {
      enabled: f.schedule.enabled,
      cadence_seconds: f.schedule.cadenceSeconds === 0 ? null : f.schedule.cadenceSeconds,
      days_of_week: f.schedule.daysOfWeek,
    };
  if (f.windowSeconds !== undefined) c.window_seconds = f.windowSeconds;
  if (f.delaySeconds !== undefined) c.delay_seconds = f.delaySeconds;
  return c;
}

export const dimensionMessage = (d: MonitorDimension): Dimension => ({
  category: d.category,
  name: d.name,
});

export const filterMessage = (f: MonitorFilter): FilterMessage => ({
  dimension: dimensionMessage(f.dimension),
  operator: f.operator,
  values: f.values,
});

function thresholdMessage(t: MonitorThreshold): Threshold {
  const none = { operator: "", value: 0, multiplier: 0, calculation: "" };
  switch (t.type) {
    case "MANUAL_SINGLE":
      return { ...none, type: t.type, operator: t.operator, value: t.value };
    case "MANUAL_RANGE":
      return {
        ...none,
        type: t.type,
        lower: { operator: t.lower.operator, value: t.lower.value, multiplier: 0 },
        upper: { operator: t.upper.operator, value: t.upper.value, multiplier: 0 },
      };
    case "DYNAMIC_SINGLE":
      return {
        ...none,
        type: t.type,
        calculation: t.calculation,
        operator: t.operator,
        multiplier: t.multiplier,
      };
    case "DYNAMIC_RANGE":
      return {
        ...none,
        type: t.type,
        calculation: t.calculation,
        lower: { operator: t.lower.operator, value: 0, multiplier: t.lower.multiplier },
        upper: { operator: t.upper.operator, value: 0, multiplier: t.upper.multiplier },
      };
  }
}

/** A channel as answered; a webhook's endpoint comes from the copy of the dispatcher's. */
function channelMessage(c: MonitorChannel, urls: ReadonlyMap<string, string>): NotificationChannel {
  const none = { emailAddress: "", integrationId: "", webhookId: "", url: "" };
  switch (c.type) {
    case "EMAIL":
      return { ...none, type: c.type, emailAddress: c.email_address };
    case "INTEGRATION":
      return { ...none, type: c.type, integrationId: c.integration_id };
    case "WEBHOOK":
      return { ...none, type: c.type, webhookId: c.webhook_id, url: urls.get(c.webhook_id) ?? "" };
  }
}

export function resolvedMessage(t: ResolvedThreshold | null): ResolvedMessage | undefined {
  if (!t) return undefined;
  const bound = (b: { operator: string; value: number } | null) =>
    b ? { operator: b.operator, value: b.value } : undefined;
  return { single: bound(t.single), lower: bound(t.lower), upper: bound(t.upper) };
}

/** The settings fields of a Monitor message. */
export function settingsMessage(s: MonitorSettings, urls: ReadonlyMap<string, string>) {
  return {
    name: s.name,
    type: "TRACING",
    threshold: thresholdMessage(s.threshold),
    notificationsEnabled: s.notifications_enabled,
    manualEvaluationEnabled: s.manual_evaluation_enabled,
    filters: s.filters.map(filterMessage),
    channels: s.channels.map((c) => channelMessage(c, urls)),
    downtime: s.downtime
      ? {
          start: s.downtime.start,
          durationSeconds: s.downtime.duration_seconds,
          frequencyDays: s.downtime.frequency_days ?? 0,
        }
      : undefined,
    schedule: s.schedule
      ? {
          enabled: s.schedule.enabled,
          cadenceSeconds: s.schedule.cadence_seconds ?? 0,
          daysOfWeek: s.schedule.days_of_week,
        }
      : undefined,
    windowSeconds: s.window_seconds,
    delaySeconds: s.delay_seconds,
    ...(s.notes === null ? {} : { notes: s.notes }),
    metric: s.metric,
    dimension: dimensionMessage(s.dimension),
  };
}
