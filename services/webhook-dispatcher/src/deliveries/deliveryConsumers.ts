import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import type { Cascade } from "@argus/spaces";
import { endForSource } from "../cascades/subscriptionCascades.ts";
import {
  deliverableOf,
  monitorChangeOf,
  taskRunFailedOf,
  type Deliverable,
} from "./deliveryPayloads.ts";

/** Postgres channel a committed delivery is announced on, so an idle worker starts at once. */
export const DELIVERIES_CHANNEL = "argus_webhook_deliveries";

const sourceDeletion: Record<string, string> = {
  PromptDeleted: "PROMPT",
  EvaluatorDeleted: "EVALUATOR",
};

/**
 * The catalog's events: one delivery row per subscribed webhook, made once (`deliveries_once`)
 * however often JetStream redelivers the event, and announced when the transaction commits;
 * a deleted prompt or evaluator ends its subscriptions.
 */
export function catalogEventsConsumer(o: {
  subjectRoot: string;
  cascade: Cascade;
}): DurableConsumerOptions {
  return {
    durable: "webhooks-catalog-events",
    filterSubject: `${o.subjectRoot}.catalog.>`,
    concurrency: 8,
    handler: async (tx, event) => {
      const deliverable = deliverableOf(event);
      if (deliverable) return makeDeliveries(tx, deliverable);
      const sourceType = sourceDeletion[event.type];
      if (sourceType) await endForSource(tx, o.cascade, event, sourceType);
    },
  };
}

/**
 * The task runner's events: a failed run of a continuous task, when its cause is new (the
 * public API sends ONLINE_TASK_RUN_FAILED once when a task starts failing and again each time
 * the cause changes; a completed run clears it), and the end of a deleted task's subscriptions.
 */
export function taskEventsConsumer(o: {
  subjectRoot: string;
  cascade: Cascade;
}): DurableConsumerOptions {
  return {
    durable: "webhooks-task-events",
    filterSubject: `${o.subjectRoot}.task-runner.>`,
    // One task's runs in order: a failure and the completion after it must not swap.
    concurrency: 1,
    types: ["TaskDeleted", "TaskRunFinished"],
    handler: async (tx, event) => {
      if (event.type === "TaskDeleted") return endForSource(tx, o.cascade, event, "ONLINE_TASK");
      const d = (event.data ?? {}) as {
        task_id?: string;
        status?: string;
        failure_reason?: string;
      };
      if (d.status === "COMPLETED")
        await tracedQuery(tx, "task recovered", "delete from task_failures where task_id = $1", [
          d.task_id,
        ]);
      const deliverable = taskRunFailedOf(event);
      if (!deliverable) return;
      const changed = await tracedQuery(
        tx,
        "task failure cause",
        `insert into task_failures (task_id, failure_reason) values ($1, $2)
         on conflict (task_id) do update set failure_reason = excluded.failure_reason
           where task_failures.failure_reason is distinct from excluded.failure_reason`,
        [d.task_id, d.failure_reason ?? ""],
      );
      if ((changed.rowCount ?? 0) > 0) await makeDeliveries(tx, deliverable);
    },
  };
}

/**
 * The tracing service's monitor events: a change of status that notifies becomes one delivery
 * per webhook the monitor names as a channel (`deliveries_once`: a redelivered event makes none
 * twice), with the same signatures, retries and delivery log as every delivery. A webhook
 * deleted meanwhile (or of another organization) gets none.
 */
export function monitorEventsConsumer(o: { subjectRoot: string }): DurableConsumerOptions {
  return {
    durable: "webhooks-monitor-events",
    filterSubject: `${o.subjectRoot}.tracing.monitor.>`,
    concurrency: 8,
    handler: async (tx, event) => {
      const change = monitorChangeOf(event);
      if (!change || change.webhookIds.length === 0) return;
      const res = await tracedQuery(
        tx,
        "make monitor deliveries",
        `insert into deliveries (event_id, webhook_id, event, payload)
         select $1::uuid, w.id, $2, $3
           from webhooks w
          where w.id = any($4::uuid[]) and w.organization_id = $5 and w.account_id = $6
         on conflict (event_id, webhook_id) do nothing`,
        [
          change.message.eventId,
          change.message.event,
          change.message.body,
          change.webhookIds,
          change.organizationId,
          change.accountId,
        ],
      );
      if ((res.rowCount ?? 0) > 0)
        await tracedQuery(tx, "announce deliveries", "select pg_notify($1, '')", [
          DELIVERIES_CHANNEL,
        ]);
    },
  };
}

/**
 * One delivery row per webhook subscribed to the event on any of its sources (subscribed before
 * the event was recorded), announced.
 */
async function makeDeliveries(tx: PoolClient, d: Deliverable): Promise<void> {
  const res = await tracedQuery(
    tx,
    "make deliveries",
    `insert into deliveries (event_id, webhook_id, event, payload)
     select distinct $1::uuid, s.webhook_id, $2, $3
       from webhook_subscriptions s
       join jsonb_to_recordset($4::jsonb) as src(type text, id uuid)
         on s.source_type = src.type and s.source_id = src.id
      where s.event = $5 and s.active_from <= $6
     on conflict (event_id, webhook_id) do nothing`,
    [
      d.message.eventId,
      d.message.event,
      d.message.body,
      JSON.stringify(d.sources),
      d.eventType,
      d.recordedAt,
    ],
  );
  if ((res.rowCount ?? 0) > 0)
    await tracedQuery(tx, "announce deliveries", "select pg_notify($1, '')", [DELIVERIES_CHANNEL]);
}
