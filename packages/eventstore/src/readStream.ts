import { eventColumns, toStoredEvent, type EventRow } from "./eventRow.ts";
import { quoteSchema } from "./schemaName.ts";
import { tracedQuery, type Queryable } from "./tracedQuery.ts";
import type { StoredEvent } from "./types.ts";

export async function readStream(
  client: Queryable,
  schema: string,
  streamId: string,
): Promise<StoredEvent[]> {
  const { rows } = await tracedQuery<EventRow>(
    client,
    "readStream",
    `SELECT ${eventColumns} FROM ${quoteSchema(schema)}.events WHERE stream_id = $1 ORDER BY stream_version`,
    [streamId],
  );
  return rows.map(toStoredEvent);
}
