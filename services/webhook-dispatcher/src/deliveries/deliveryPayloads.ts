import type { StoredEvent } from "@argus/eventstore";
import type { WebhookEventType, WebhookSourceType } from "@argus/contracts";
import { encodeId, uuidv7 } from "@argus/platform";

/** What a consumed event delivers: to whom (source and event) and the exact body. */
export interface Message {
  eventId: string;
  /** The payload's `event`, e.g. `prompt.version.created`. */
  event: string;
  body: string;
}

export interface Deliverable {
  /** Every source whose subscriptions to `eventType` get it (a task's run: the task and its space). */
  sources: { type: WebhookSourceType; id: string }[];
  eventType: WebhookEventType;
  message: Message;
  /** When the event was recorded: subscriptions created after it do not get it. */
  recordedAt: Date;
}

/** The public API's payload names of each event (`www.arize.com/docs/ax/.../webhooks.md`). */
const NAMES: Record<WebhookEventType, string> = {
  PROMPT_VERSION_CREATED: "prompt.version.created",
  PROMPT_VERSION_LABELED: "prompt.version.labeled",
  PROMPT_VERSION_UNLABELED: "prompt.version.unlabeled",
  EVALUATOR_VERSION_CREATED: "evaluator.version.created",
  ONLINE_TASK_RUN_FAILED: "online_task.run.failed",
  MONITOR_TRIGGERED: "monitor.triggered",
  MONITOR_CLEARED: "monitor.cleared",
};

type Data = Record<string, unknown>;
const str = (d: Data, key: string): string => {
  const v = d[key];
  if (typeof v !== "string") throw new Error(`event data has no string ${key}`);
  return v;
};
const optional = (d: Data, key: string): string | null =>
  typeof d[key] === "string" && d[key] !== "" ? d[key] : null;
const userId = (d: Data) => {
  const id = optional(d, "created_by_user_id");
  return id ? encodeId("User", id) : null;
};

/** The envelope every delivery shares; ids are the public API's. */
function envelope(
  eventId: string,
  eventType: WebhookEventType | "TEST",
  occurredAt: string,
  data: Data,
): Message {
  const event = eventType === "TEST" ? "webhook.test" : NAMES[eventType];
  const body = JSON.stringify({
    event_id: eventId,
    event,
    event_type: eventType,
    occurred_at: occurredAt,
    data,
  });
  return { eventId, event, body };
}

/**
 * The catalog events subscriptions deliver, as messages; undefined for the others. The event's
 * id is the delivery's: every consumer redelivery and every retry carries the same one.
 */
export function deliverableOf(e: StoredEvent): Deliverable | undefined {
  const d = (e.data ?? {}) as Data;
  const at = (key: string) => str(d, key);
  const make = (
    sourceType: WebhookSourceType,
    sourceId: string,
    eventType: WebhookEventType,
    occurredAt: string,
    data: Data,
  ): Deliverable => ({
    sources: [{ type: sourceType, id: sourceId }],
    eventType,
    recordedAt: e.recordedAt,
    message: envelope(e.eventId, eventType, occurredAt, {
      space_id: encodeId("Space", str(d, "space_id")),
      ...data,
    }),
  });
  switch (e.type) {
    case "PromptVersionCreated":
      return make("PROMPT", str(d, "prompt_id"), "PROMPT_VERSION_CREATED", at("created_at"), {
        prompt_id: encodeId("Prompt", str(d, "prompt_id")),
        prompt_version_id: encodeId("PromptVersion", str(d, "id")),
        commit_hash: str(d, "commit_hash"),
        commit_message: optional(d, "commit_message"),
        provider: optional(d, "provider"),
        model: optional(d, "model"),
        created_by_user_id: userId(d),
        created_at: at("created_at"),
      });
    case "PromptLabelSet":
      return make("PROMPT", str(d, "prompt_id"), "PROMPT_VERSION_LABELED", at("set_at"), {
        prompt_id: encodeId("Prompt", str(d, "prompt_id")),
        prompt_version_id: encodeId("PromptVersion", str(d, "version_id")),
        label: str(d, "label"),
        previous_prompt_version_id:
          optional(d, "previous_version_id") === null
            ? null
            : encodeId("PromptVersion", str(d, "previous_version_id")),
      });
    case "PromptLabelDeleted":
      return make("PROMPT", str(d, "prompt_id"), "PROMPT_VERSION_UNLABELED", at("deleted_at"), {
        prompt_id: encodeId("Prompt", str(d, "prompt_id")),
        prompt_version_id: encodeId("PromptVersion", str(d, "version_id")),
        label: str(d, "label"),
      });
    case "EvaluatorVersionCreated":
      return make(
        "EVALUATOR",
        str(d, "evaluator_id"),
        "EVALUATOR_VERSION_CREATED",
        at("created_at"),
        {
          evaluator_id: encodeId("Evaluator", str(d, "evaluator_id")),
          evaluator_version_id: encodeId("EvaluatorVersion", str(d, "id")),
          evaluator_type: optional(d, "evaluator_type"),
          commit_hash: str(d, "commit_hash"),
          commit_message: optional(d, "commit_message"),
          created_by_user_id: userId(d),
          created_at: at("created_at"),
        },
      );
    default:
      return undefined;
  }
}

/** The test event of `POST /v2/webhooks/{id}/test`: a fresh id each time. */
export function testMessage(webhookId: string, now: Date): Message {
  return envelope(uuidv7(now.getTime()), "TEST", now.toISOString(), {
    webhook_id: encodeId("Webhook", webhookId),
    message: "This is a test delivery from Argus.",
  });
}

/** A failed run of a continuous task: delivered to the task's and its space's subscriptions. */
export function taskRunFailedOf(e: StoredEvent): Deliverable | undefined {
  if (e.type !== "TaskRunFinished") return undefined;
  const d = (e.data ?? {}) as Data;
  if (d.status !== "FAILED" || d.is_continuous !== true) return undefined;
  const taskId = str(d, "task_id");
  const spaceId = str(d, "space_id");
  return {
    sources: [
      { type: "ONLINE_TASK", id: taskId },
      { type: "SPACE", id: spaceId },
    ],
    eventType: "ONLINE_TASK_RUN_FAILED",
    recordedAt: e.recordedAt,
    message: envelope(e.eventId, "ONLINE_TASK_RUN_FAILED", str(d, "finished_at"), {
      space_id: encodeId("Space", spaceId),
      task_id: encodeId("Task", taskId),
      task_run_id: encodeId("TaskRun", str(d, "id")),
      status: "failed",
      error_type: "run_failed",
      failure_reason: optional(d, "failure_reason"),
      num_successes: d.num_successes ?? 0,
      num_errors: d.num_errors ?? 0,
    }),
  };
}

/** A monitor's change of status its channels are told of: to whom (webhook ids) and what. */
export interface MonitorDeliverable {
  organizationId: string;
  accountId: string;
  webhookIds: string[];
  message: Message;
}

/**
 * The tracing service's MonitorStatusChanged, when it notifies (`notify`: to TRIGGERED, or back
 * to CLEARED): one message for the monitor's WEBHOOK channels. The monitor's e-mail and
 * integration channels have no sender here; the evaluation that made the change records them
 * as not sent (the tracing service's evaluation history).
 */
export function monitorChangeOf(e: StoredEvent): MonitorDeliverable | undefined {
  if (e.type !== "MonitorStatusChanged") return undefined;
  const d = (e.data ?? {}) as Data;
  if (d.notify !== true) return undefined;
  const status = str(d, "status");
  const eventType: WebhookEventType | undefined =
    status === "TRIGGERED"
      ? "MONITOR_TRIGGERED"
      : status === "CLEARED"
        ? "MONITOR_CLEARED"
        : undefined;
  if (!eventType) return undefined;
  const channels = Array.isArray(d.channels) ? (d.channels as Data[]) : [];
  const webhookIds = channels.flatMap((c) =>
    c.type === "WEBHOOK" && typeof c.webhook_id === "string" ? [c.webhook_id] : [],
  );
  const dimension = (d.dimension ?? {}) as Data;
  return {
    organizationId: str(d, "organization_id"),
    accountId: str(d, "account_id"),
    webhookIds,
    message: envelope(e.eventId, eventType, str(d, "evaluated_at"), {
      space_id: encodeId("Space", str(d, "space_id")),
      project_id: encodeId("Project", str(d, "project_id")),
      monitor_id: encodeId("Monitor", str(d, "id")),
      monitor_name: str(d, "name"),
      status,
      previous_status: str(d, "previous_status"),
      metric: str(d, "metric"),
      dimension: { category: dimension.category ?? null, name: dimension.name ?? null },
      value: typeof d.value === "number" ? d.value : null,
      threshold: d.threshold ?? null,
      window_start: str(d, "window_start"),
      window_end: str(d, "window_end"),
      evaluated_at: str(d, "evaluated_at"),
    }),
  };
}
