import type { PoolClient } from "pg";
import { tracedQuery, type EventMetadata, type StoredEvent } from "@argus/eventstore";
import { streamId } from "@argus/contracts";
import {
  causedBy,
  cascadeMetadata,
  cascadeScope,
  spaceEventsConsumer,
  type Cascade,
} from "@argus/spaces";
import { subscriptionDecider } from "../webhookSubscriptions/subscriptionDecider.ts";

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
  const scope = cascadeScope(tx, c);
  for (const { id } of res.rows)
    await scope.decide(
      streamId("webhook_subscription", id),
      subscriptionDecider,
      { type: "DeleteSubscription", now: c.clock.now() },
      metadata,
    );
}

/** Ends the subscriptions of a deleted source (its event's `id`), caused by that event. */
export async function endForSource(
  tx: PoolClient,
  c: Cascade,
  event: StoredEvent,
  sourceType: string,
): Promise<void> {
  const id = ((event.data ?? {}) as { id?: unknown }).id;
  if (typeof id !== "string") throw new Error(`${event.type} ${event.eventId} has no id`);
  await endSubscriptions(
    tx,
    c,
    "source_type = $1 and source_id = $2",
    [sourceType, id],
    causedBy(event, String(event.metadata.account_id ?? "")),
  );
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
