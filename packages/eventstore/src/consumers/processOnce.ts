import type { Pool, PoolClient } from "pg";
import { checkout } from "@argus/platform";
import { markProcessed } from "./processedEvents.ts";
import type { ConsumedEvent } from "../types.ts";
import { withTransaction } from "../schema/withTransaction.ts";

/**
 * A projection or reaction: its writes go through `tx`, the transaction of its processed
 * marker (a connection of its own for a consumer declared idempotent: processIdempotent).
 */
export type EventHandler = (tx: PoolClient, event: ConsumedEvent) => Promise<void>;

/**
 * Effect and processed marker commit together, so a delivery is either fully applied or not
 * at all, and a redelivery of an applied event finds the marker and does nothing.
 */
export function processOnce(
  pool: Pool,
  schema: string,
  consumer: string,
  event: ConsumedEvent,
  handler: EventHandler,
): Promise<"processed" | "duplicate"> {
  return withTransaction(pool, async (client) => {
    const fresh = await markProcessed(client, schema, consumer, [event.eventId]);
    if (fresh.size === 0) return "duplicate";
    await handler(client, event);
    return "processed";
  });
}

/**
 * A handler whose one statement a redelivery repeats harmlessly (an insert keyed by the event
 * id, `on conflict do nothing`): one round trip on a pooled connection, without the marker and
 * the transaction around it.
 */
export async function processIdempotent(
  pool: Pool,
  event: ConsumedEvent,
  handler: EventHandler,
): Promise<"processed"> {
  const client = await checkout(pool);
  try {
    await handler(client, event);
    return "processed";
  } finally {
    client.release();
  }
}
