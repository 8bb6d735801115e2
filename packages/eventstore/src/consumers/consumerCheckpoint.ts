import type { ClientBase } from "pg";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import type { Checkpoint } from "../types.ts";

/**
 * Compare-and-set in the handler's transaction: moves the checkpoint from `expected` to `next`,
 * or fails if someone else moved it, so two replays of one consumer cannot interleave.
 */
export async function storeConsumerCheckpoint(
  client: ClientBase,
  schema: string,
  consumer: string,
  expected: Checkpoint,
  next: Checkpoint,
): Promise<void> {
  const { rowCount } = await tracedQuery(
    client,
    "storeConsumerCheckpoint",
    `INSERT INTO ${quoteSchema(schema)}.consumer_checkpoints AS c (consumer, transaction_id, global_position)
     VALUES ($1, $4::xid8, $5::bigint)
     ON CONFLICT (consumer) DO UPDATE
       SET transaction_id = excluded.transaction_id, global_position = excluded.global_position, updated_at = now()
       WHERE (c.transaction_id, c.global_position) = ($2::xid8, $3::bigint)`,
    [
      consumer,
      expected.transactionId.toString(),
      expected.globalPosition.toString(),
      next.transactionId.toString(),
      next.globalPosition.toString(),
    ],
  );
  if (rowCount !== 1) throw new Error(`checkpoint of consumer ${consumer} moved concurrently`);
}
