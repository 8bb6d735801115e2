import { DomainError, decodeId, encodeId } from "@argus/platform";
import {
  MonitorServiceService,
  type Dimension,
  type Monitor,
  type MonitorEvaluation,
  type MonitorFields,
  type MonitorFilter,
  type NotificationChannel,
  type ResolvedThreshold,
  type Threshold,
} from "@argus/proto/tracing/v1/monitors";
import type { Backend } from "../backend.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { pathId, utcText } from "./params.ts";
import { listPage } from "./listPage.ts";

type Schemas = components["schemas"];
/** The public API's shapes of a monitor's parts (openapi/paths/monitors.yaml). */
type DimensionBody = Schemas["Dimension"];
type FilterBody = Schemas["MonitorFilter"];
type ThresholdBody = Schemas["ThresholdConfig"];
type ChannelBody = Schemas["NotificationConfig"];
/** What a create and an update both say: an update's fields, all optional. */
type MonitorBody = Body<"update_monitor"> | Omit<Body<"create_monitor">, "project_id">;

const dimensionOf = (d: DimensionBody): Dimension => ({
  category: d.category,
  name: d.name,
});

const filterOf = (f: FilterBody): MonitorFilter => ({
  dimension: dimensionOf(f.dimension),
  operator: f.operator,
  values: f.values,
});

function thresholdOf(t: ThresholdBody): Threshold {
  const none = { operator: "", value: 0, multiplier: 0, calculation: "" };
  const bound = (b: { operator: string; value?: number; multiplier?: number }) => ({
    operator: b.operator,
    value: b.value ?? 0,
    multiplier: b.multiplier ?? 0,
  });
  switch (t.type) {
    case "MANUAL_SINGLE":
      return { ...none, type: t.type, operator: t.operator, value: t.value };
    case "DYNAMIC_SINGLE":
      return {
        ...none,
        type: t.type,
        operator: t.operator,
        multiplier: t.multiplier,
        calculation: t.calculation,
      };
    case "MANUAL_RANGE":
      return { ...none, type: t.type, lower: bound(t.lower), upper: bound(t.upper) };
    case "DYNAMIC_RANGE":
      return {
        ...none,
        type: t.type,
        calculation: t.calculation,
        lower: bound(t.lower),
        upper: bound(t.upper),
      };
  }
}

/**
 * A channel's ids as the service takes them. An id that is not a webhook's (or an
 * integration's) names none: the service answers it as a channel naming nothing (422).
 */
function channelOf(c: ChannelBody): NotificationChannel {
  const none = { emailAddress: "", integrationId: "", webhookId: "", url: "" };
  switch (c.type) {
    case "EMAIL":
      return { ...none, type: c.type, emailAddress: c.email_address };
    case "INTEGRATION":
      return {
        ...none,
        type: c.type,
        integrationId: decodeId("Integration", c.integration_id) ?? "",
      };
    case "WEBHOOK":
      return { ...none, type: c.type, webhookId: decodeId("Webhook", c.id) ?? "" };
  }
}

/** The body's fields as the service takes them; absent fields keep their values (or defaults). */
function fieldsOf(b: MonitorBody): MonitorFields {
  return {
    ...(b.name === undefined ? {} : { name: b.name }),
    ...(typeof b.notes === "string" ? { notes: b.notes } : {}),
    clearNotes: b.notes === null,
    ...(b.type === undefined ? {} : { type: b.type }),
    ...(b.metric === undefined ? {} : { metric: b.metric }),
    ...(b.dimension ? { dimension: dimensionOf(b.dimension) } : {}),
    ...(b.filters ? { filters: { items: b.filters.map(filterOf) } } : {}),
    ...(b.threshold ? { threshold: thresholdOf(b.threshold) } : {}),
    ...(b.notifications_enabled === undefined
      ? {}
      : { notificationsEnabled: b.notifications_enabled }),
    ...(b.manual_evaluation_enabled === undefined
      ? {}
      : { manualEvaluationEnabled: b.manual_evaluation_enabled }),
    ...(b.notification_configs
      ? { channels: { items: b.notification_configs.map(channelOf) } }
      : {}),
    ...(b.downtime
      ? {
          downtime: {
            start: utcText(b.downtime.start, "downtime.start"),
            durationSeconds: b.downtime.duration_seconds,
            frequencyDays: b.downtime.frequency_days ?? 0,
          },
        }
      : {}),
    clearDowntime: b.downtime === null,
    ...(b.scheduled_runtime
      ? {
          schedule: {
            enabled: b.scheduled_runtime.enabled,
            cadenceSeconds: b.scheduled_runtime.cadence_seconds ?? 0,
            daysOfWeek: b.scheduled_runtime.days_of_week ?? [],
          },
        }
      : {}),
    clearSchedule: b.scheduled_runtime === null,
    ...(b.evaluation_window_length_seconds === undefined
      ? {}
      : { windowSeconds: b.evaluation_window_length_seconds }),
    ...(b.delay_seconds === undefined ? {} : { delaySeconds: b.delay_seconds }),
  };
}

const toPublicDimension = (d: Dimension | undefined) => ({
  category: d?.category ?? "",
  name: d?.name ?? "",
});

const toPublicFilter = (f: MonitorFilter) => ({
  dimension: toPublicDimension(f.dimension),
  operator: f.operator,
  values: f.values,
});

function toPublicThreshold(t: Threshold | undefined) {
  if (!t) throw new Error("the tracing service answered a monitor without a threshold");
  switch (t.type) {
    case "MANUAL_SINGLE":
      return { type: t.type, operator: t.operator, value: t.value };
    case "DYNAMIC_SINGLE":
      return {
        type: t.type,
        calculation: t.calculation,
        operator: t.operator,
        multiplier: t.multiplier,
      };
    case "MANUAL_RANGE":
      return {
        type: t.type,
        lower: { operator: t.lower!.operator, value: t.lower!.value },
        upper: { operator: t.upper!.operator, value: t.upper!.value },
      };
    default:
      return {
        type: t.type,
        calculation: t.calculation,
        lower: { operator: t.lower!.operator, multiplier: t.lower!.multiplier },
        upper: { operator: t.upper!.operator, multiplier: t.upper!.multiplier },
      };
  }
}

function toPublicChannel(c: NotificationChannel) {
  switch (c.type) {
    case "EMAIL":
      return { type: c.type, email_address: c.emailAddress };
    case "INTEGRATION":
      return { type: c.type, integration_id: encodeId("Integration", c.integrationId) };
    default:
      return {
        type: c.type,
        id: encodeId("Webhook", c.webhookId),
        ...(c.url ? { url: c.url } : {}),
      };
  }
}

/** A TRACING monitor as the public API answers it: what is unset is omitted. */
function toPublicMonitor(m: Monitor) {
  return {
    id: encodeId("Monitor", m.id),
    name: m.name,
    type: m.type,
    project_id: encodeId("Project", m.projectId),
    status: m.status,
    threshold: toPublicThreshold(m.threshold),
    notifications_enabled: m.notificationsEnabled,
    manual_evaluation_enabled: m.manualEvaluationEnabled,
    ...(m.createdByUserId ? { created_by_user_id: encodeId("User", m.createdByUserId) } : {}),
    ...(m.filters.length > 0 ? { filters: m.filters.map(toPublicFilter) } : {}),
    ...(m.channels.length > 0 ? { notification_configs: m.channels.map(toPublicChannel) } : {}),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    ...(m.downtime
      ? {
          downtime: {
            start: m.downtime.start,
            duration_seconds: m.downtime.durationSeconds,
            ...(m.downtime.frequencyDays ? { frequency_days: m.downtime.frequencyDays } : {}),
          },
        }
      : {}),
    ...(m.schedule
      ? {
          scheduled_runtime: {
            enabled: m.schedule.enabled,
            ...(m.schedule.cadenceSeconds ? { cadence_seconds: m.schedule.cadenceSeconds } : {}),
            days_of_week: m.schedule.daysOfWeek,
          },
        }
      : {}),
    evaluation_window_length_seconds: m.windowSeconds,
    delay_seconds: m.delaySeconds,
    ...(m.evaluatedAt ? { evaluated_at: m.evaluatedAt } : {}),
    ...(m.latestComputedValue === undefined
      ? {}
      : { latest_computed_value: m.latestComputedValue }),
    ...(m.notes === undefined ? {} : { notes: m.notes }),
    metric: m.metric,
    dimension: toPublicDimension(m.dimension),
  };
}

export function toPublicResolved(t: ResolvedThreshold | undefined) {
  if (!t) return undefined;
  const bound = (b: { operator: string; value: number } | undefined) =>
    b ? { operator: b.operator, value: b.value } : undefined;
  return {
    ...(t.single ? { single: bound(t.single) } : {}),
    ...(t.lower ? { lower: bound(t.lower) } : {}),
    ...(t.upper ? { upper: bound(t.upper) } : {}),
  };
}

function toPublicEvaluation(e: MonitorEvaluation) {
  const threshold = toPublicResolved(e.threshold);
  return {
    id: encodeId("MonitorEvaluation", e.id),
    monitor_id: encodeId("Monitor", e.monitorId),
    window_start: e.windowStart,
    window_end: e.windowEnd,
    evaluated_at: e.evaluatedAt,
    ...(e.value === undefined ? {} : { value: e.value }),
    ...(threshold ? { threshold } : {}),
    status: e.status,
    previous_status: e.previousStatus,
    in_downtime: e.inDowntime,
    ...(e.reason ? { reason: e.reason } : {}),
    trigger: e.trigger,
    notifications: e.notifications.map((n) => ({
      type: n.type,
      target:
        n.type === "WEBHOOK"
          ? encodeId("Webhook", n.target)
          : n.type === "INTEGRATION"
            ? encodeId("Integration", n.target)
            : n.target,
      state: n.state,
      ...(n.reason ? { reason: n.reason } : {}),
    })),
  };
}

/** A query id of a list filter: malformed is 400, as the public API documents for monitors. */
function queryId(raw: string | undefined, name: string, type: string): string {
  if (raw === undefined) return "";
  const id = decodeId(type, raw);
  if (id === null)
    throw new DomainError("invalid-request", `${name} is not a well-formed ${type} id`);
  return id;
}

const monitorId = (req: { params: { monitor_id: string } }) =>
  pathId("Monitor", req.params.monitor_id, "monitor");

export function monitorHandlers(tracing: Backend): ResourceHandlers<"monitors"> {
  return {
    async list_monitors(req) {
      const q = req.query;
      const res = await tracing.call(
        MonitorServiceService.listMonitors,
        {
          page: req.page,
          spaceId: queryId(q.space_id, "space_id", "Space"),
          spaceName: q.space_name ?? "",
          name: q.name ?? "",
          projectId: queryId(q.project_id, "project_id", "Project"),
          projectName: q.project_name ?? "",
          type: q.type ?? "",
          status: q.status ?? "",
          ...(q.notifications_enabled === undefined
            ? {}
            : { notificationsEnabled: q.notifications_enabled }),
          dimensionCategory: q.dimension_category ?? "",
          dimensionName: q.dimension_name ?? "",
          dataQualityMetric: q.data_quality_metric ?? "",
          performanceMetric: q.performance_metric ?? "",
          driftMetric: q.drift_metric ?? "",
          customMetricId: queryId(q.custom_metric_id, "custom_metric_id", "CustomMetric"),
        },
        req,
      );
      return listPage("monitors", res.monitors.map(toPublicMonitor), res.page);
    },

    async get_monitor(req) {
      const m = await tracing.call(MonitorServiceService.getMonitor, { id: monitorId(req) }, req);
      return { status: 200, body: toPublicMonitor(m) };
    },

    async create_monitor(req) {
      const body = req.body;
      const projectId = pathId("Project", body.project_id, "project");
      const m = await tracing.call(
        MonitorServiceService.createMonitor,
        { projectId, fields: fieldsOf(body) },
        req,
      );
      return { status: 201, body: toPublicMonitor(m) };
    },

    async update_monitor(req) {
      const m = await tracing.call(
        MonitorServiceService.updateMonitor,
        { id: monitorId(req), fields: fieldsOf(req.body) },
        req,
      );
      return { status: 200, body: toPublicMonitor(m) };
    },

    delete_monitor: (req) =>
      noContent(tracing.call(MonitorServiceService.deleteMonitor, { id: monitorId(req) }, req)),

    async evaluate_monitor(req) {
      const e = await tracing.call(
        MonitorServiceService.evaluateMonitor,
        { id: monitorId(req) },
        req,
      );
      return { status: 200, body: toPublicEvaluation(e) };
    },

    async list_monitor_evaluations(req) {
      const res = await tracing.call(
        MonitorServiceService.listMonitorEvaluations,
        { id: monitorId(req), page: req.page },
        req,
      );
      return listPage("evaluations", res.evaluations.map(toPublicEvaluation), res.page);
    },
  };
}
