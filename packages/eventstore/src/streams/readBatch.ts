import type { ClientBase } from "pg";
import { eventColumns, toStoredEvent, type EventRow } from "../schema/eventRow.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import type { Checkpoint, DataText, StoredEvent } from "../types.ts";

/**
 * The next events after `after` in commit order. Identity values are taken at insert time but
 * become visible at commit, so positions commit out of order; a transaction id below the
 * snapshot's xmin, however, belongs to a transaction that has finished. Reading only those,
 * ordered by (transaction_id, global_position), never passes over an event that could still
 * appear behind the cursor.
 */
export async function readBatch(
  client: ClientBase,
  schema: string,
  after: Checkpoint,
  limit: number,
): Promise<StoredEvent[]> {
  return (await readRows(client, schema, after, limit, eventColumns)).map(toStoredEvent);
}

/**
 * The columns with the data as Postgres' JSON text of it (the relay publishes it as is), or
 * null for the events whose ids are the uuid[] parameter `$4` (their text is held).
 */
const columnsDataText = eventColumns.replace(
  " data,",
  " CASE WHEN event_id = ANY($4::uuid[]) THEN NULL ELSE data::text END AS data,",
);

/**
 * An event with its data as JSON text (or that text's UTF-8), as the relay publishes it, and
 * whether that text is a bulk write's cut of it (`JsonText.bus`).
 */
export type EventWithDataText = Omit<StoredEvent, "data"> & {
  dataJson: string | Uint8Array;
  dataCut: boolean;
};

/**
 * `readBatch`, with each event's data left as Postgres' JSON text of it; for an event in
 * `held` (by id), the text held instead, which Postgres is not asked for.
 */
export async function readBatchDataText(
  client: ClientBase,
  schema: string,
  after: Checkpoint,
  limit: number,
  held: ReadonlyMap<string, DataText> = new Map(),
): Promise<EventWithDataText[]> {
  const rows = await readRows(client, schema, after, limit, columnsDataText, [[...held.keys()]]);
  return rows.map((row) => {
    const { data, ...event } = toStoredEvent(row);
    const h = held.get(event.eventId);
    return { ...event, dataJson: h?.bytes ?? (data as string), dataCut: h?.cut ?? false };
  });
}

async function readRows(
  client: ClientBase,
  schema: string,
  after: Checkpoint,
  limit: number,
  columns: string,
  more: unknown[] = [],
): Promise<EventRow[]> {
  const { rows } = await tracedQuery<EventRow>(
    client,
    "readBatch",
    // ORDER BY is qualified: bare names would sort by the ::text output columns of the same name.
    `SELECT ${columns} FROM ${quoteSchema(schema)}.events e
     WHERE (e.transaction_id, e.global_position) > ($1::xid8, $2::bigint)
       AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY e.transaction_id, e.global_position
     LIMIT $3`,
    [after.transactionId.toString(), after.globalPosition.toString(), limit, ...more],
  );
  return rows;
}
