import { loadStream } from "./snapshots.ts";
import type { Queryable } from "../schema/tracedQuery.ts";
import type { StoredEvent } from "../types.ts";

/** Every event of a stream, in order. */
export async function readStream(
  client: Queryable,
  schema: string,
  streamId: string,
): Promise<StoredEvent[]> {
  return (await loadStream(client, schema, streamId, undefined)).events;
}
