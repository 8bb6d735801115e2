import type { ClientBase } from "pg";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";

/**
 * Records that `consumer` handled these events, inside the handler's transaction. Returns the
 * ids that were new; the others were handled before (a redelivery) and must have no effect.
 * A concurrent delivery of the same event waits here on the row lock until the first commits.
 */
export async function markProcessed(
  client: ClientBase,
  schema: string,
  consumer: string,
  eventIds: readonly string[],
): Promise<Set<string>> {
  const { rows } = await tracedQuery<{ event_id: string }>(
    client,
    "markProcessed",
    `INSERT INTO ${quoteSchema(schema)}.processed_events (consumer, event_id)
     SELECT $1, id FROM unnest($2::uuid[]) AS id
     ON CONFLICT DO NOTHING
     RETURNING event_id`,
    [consumer, eventIds],
  );
  return new Set(rows.map((row) => row.event_id));
}
