import type { ClientBase } from "pg";
import { initialCheckpoint } from "../streams/checkpoint.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import type { Checkpoint } from "../types.ts";

export async function loadRelayCheckpoint(
  client: ClientBase,
  schema: string,
  relay: string,
): Promise<Checkpoint> {
  const { rows } = await tracedQuery<{ transaction_id: string; global_position: string }>(
    client,
    "loadRelayCheckpoint",
    `SELECT transaction_id::text, global_position::text FROM ${quoteSchema(schema)}.relay_checkpoints WHERE relay = $1`,
    [relay],
  );
  const row = rows[0];
  if (!row) return initialCheckpoint;
  return { transactionId: BigInt(row.transaction_id), globalPosition: BigInt(row.global_position) };
}

/** Only ever moves forward, so a stale writer can never rewind the relay. */
export async function storeRelayCheckpoint(
  client: ClientBase,
  schema: string,
  relay: string,
  checkpoint: Checkpoint,
): Promise<void> {
  const s = quoteSchema(schema);
  await tracedQuery(
    client,
    "storeRelayCheckpoint",
    `INSERT INTO ${s}.relay_checkpoints AS c (relay, transaction_id, global_position)
     VALUES ($1, $2::xid8, $3::bigint)
     ON CONFLICT (relay) DO UPDATE
       SET transaction_id = excluded.transaction_id, global_position = excluded.global_position, updated_at = now()
       WHERE (c.transaction_id, c.global_position) < (excluded.transaction_id, excluded.global_position)`,
    [relay, checkpoint.transactionId.toString(), checkpoint.globalPosition.toString()],
  );
}
