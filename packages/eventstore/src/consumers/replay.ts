import type { Pool, PoolClient } from "pg";
import { checkpointOf, initialCheckpoint } from "../streams/checkpoint.ts";
import { storeConsumerCheckpoint } from "./consumerCheckpoint.ts";
import type { Logger } from "../logger.ts";
import type { EventHandler } from "./processOnce.ts";
import { markProcessed } from "./processedEvents.ts";
import { readBatch } from "../streams/readBatch.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import type { Checkpoint, StoredEvent } from "../types.ts";
import { withTransaction } from "../schema/withTransaction.ts";

interface ResetConsumerOptions {
  pool: Pool;
  /** The consumer's own schema. */
  schema: string;
  consumer: string;
  /** Empties the projection's own tables, in the same transaction as the reset. */
  clear?: (tx: PoolClient) => Promise<void>;
}

export interface ReplayOptions extends ResetConsumerOptions {
  handler: EventHandler;
  /** Where the events are read from, when they are not in `schema`; default `schema`. */
  eventsSchema?: string;
  /** Events the consumer does not subscribe to (its subject filter) are skipped. */
  filter?: (event: StoredEvent) => boolean;
  batchSize?: number;
  logger?: Logger;
}

/** Forgets what a consumer processed, so every event counts as new to it again. */
async function resetConsumer(options: ResetConsumerOptions): Promise<void> {
  const s = quoteSchema(options.schema);
  await withTransaction(options.pool, async (client) => {
    await tracedQuery(
      client,
      "resetConsumer",
      `DELETE FROM ${s}.processed_events WHERE consumer = $1`,
      [options.consumer],
    );
    await tracedQuery(
      client,
      "resetConsumer",
      `DELETE FROM ${s}.consumer_checkpoints WHERE consumer = $1`,
      [options.consumer],
    );
    await options.clear?.(client);
  });
}

/**
 * Rebuilds a consumer from Postgres alone: resets it, then feeds every committed event in
 * commit order through the handler, one transaction per batch holding the effects, the
 * processed markers and the compare-and-set checkpoint. Stop the live runner meanwhile; what
 * it delivers afterwards is recognised as already processed.
 */
export async function replay(
  options: ReplayOptions,
): Promise<{ events: number; checkpoint: Checkpoint }> {
  const { pool, schema, consumer, handler } = options;
  const eventsSchema = options.eventsSchema ?? schema;
  const batchSize = options.batchSize ?? 500;
  await resetConsumer(options);
  let checkpoint = initialCheckpoint;
  let handled = 0;
  for (;;) {
    const before = checkpoint;
    const batch = await withTransaction(pool, async (client) => {
      const events = await readBatch(client, eventsSchema, before, batchSize);
      const wanted = options.filter ? events.filter(options.filter) : events;
      const fresh = await markProcessed(
        client,
        schema,
        consumer,
        wanted.map((e) => e.eventId),
      );
      for (const event of wanted) if (fresh.has(event.eventId)) await handler(client, event);
      const last = events.at(-1);
      if (last) await storeConsumerCheckpoint(client, schema, consumer, before, checkpointOf(last));
      handled += fresh.size;
      return events;
    });
    const last = batch.at(-1);
    if (!last) break;
    checkpoint = checkpointOf(last);
    options.logger?.debug("replayed batch", { consumer, events: batch.length, checkpoint });
  }
  return { events: handled, checkpoint };
}
