import type { PoolClient } from "pg";
import {
  commandScopeIn,
  tracedQuery,
  type DurableConsumerOptions,
  type EventMetadata,
  type Project,
  type StoredEvent,
} from "@argus/eventstore";
import { streamId } from "@argus/contracts";
import { CASCADE_ACTOR, cascadeMetadata, spaceEventsConsumer } from "@argus/spaces";
import { subscriptionDecider } from "../domain/subscription.ts";
import { deliverableOf } from "./payloads.ts";

/** Postgres channel a committed delivery is announced on, so an idle worker starts at once. */
export const DELIVERIES_CHANNEL = "argus_webhook_deliveries";

interface Cascade {
  schema: string;
  project: Project;
}

/** Ends the subscriptions `where` selects, each by its own event, in the consumer's transaction. */
async function endSubscriptions(
  tx: PoolClient,
  c: Cascade,
  where: string,
  params: unknown[],
  metadata: EventMetadata,
): Promise<void> {
  const res = await tracedQuery<{ id: string }>(
    tx,
    "subscriptions to end",
    `select id from webhook_subscriptions where ${where} order by id`,
    params,
  );
  const scope = commandScopeIn(tx, c.schema, c.project);
  for (const { id } of res.rows)
    await scope.decide(
      streamId("webhook_subscription", id),
      subscriptionDecider,
      { type: "DeleteSubscription", now: new Date() },
      metadata,
    );
}

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
      if (deliverable) {
        const res = await tracedQuery(
          tx,
          "make deliveries",
          `insert into deliveries (event_id, webhook_id, event, payload)
           select $1, s.webhook_id, $2, $3
             from webhook_subscriptions s
            where s.source_type = $4 and s.source_id = $5 and s.event = $6
           on conflict (event_id, webhook_id) do nothing`,
          [
            deliverable.message.eventId,
            deliverable.message.event,
            deliverable.message.body,
            deliverable.sourceType,
            deliverable.sourceId,
            deliverable.eventType,
          ],
        );
        if ((res.rowCount ?? 0) > 0)
          await tracedQuery(tx, "announce deliveries", "select pg_notify($1, '')", [
            DELIVERIES_CHANNEL,
          ]);
        return;
      }
      const sourceType = sourceDeletion[event.type];
      if (sourceType) await endForSource(tx, o.cascade, event, sourceType);
    },
  };
}

async function endForSource(
  tx: PoolClient,
  c: Cascade,
  event: StoredEvent,
  sourceType: string,
): Promise<void> {
  const id = ((event.data ?? {}) as { id?: unknown }).id;
  if (typeof id !== "string") throw new Error(`${event.type} ${event.eventId} has no id`);
  await endSubscriptions(tx, c, "source_type = $1 and source_id = $2", [sourceType, id], {
    account_id: String(event.metadata.account_id ?? ""),
    actor: CASCADE_ACTOR,
    cause_event_id: event.eventId,
    cause_event_type: event.type,
  });
}

/** A deleted space ends the subscriptions on it and on everything it held. */
export function spaceCascadeConsumer(o: { subjectRoot: string; cascade: Cascade }) {
  return spaceEventsConsumer({
    durable: "webhooks-space-cascade",
    subjectRoot: o.subjectRoot,
    onSpaceDeleted: (tx, deleted, event) =>
      endSubscriptions(
        tx,
        o.cascade,
        "space_id = $1",
        [deleted.data.id],
        cascadeMetadata(deleted, event),
      ),
  });
}
