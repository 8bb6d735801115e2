import { eventColumns, toStoredEvent, type EventRow } from "../schema/eventRow.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery, type Queryable } from "../schema/tracedQuery.ts";
import type { StoredEvent } from "../types.ts";

/**
 * A stream as a command reads it: the events after its snapshot, or all of them without one.
 * Its version is that of its last event (the snapshot's when none follows it).
 */
export interface StreamRead {
  snapshot?: { version: number; state: unknown };
  events: StoredEvent[];
  version: number;
}

/**
 * The stream from its latest snapshot taken under `tag` (a decider's `snapshots.tag`), or from
 * its start when `tag` is undefined or no such snapshot exists.
 */
export async function loadStream(
  client: Queryable,
  schema: string,
  streamId: string,
  tag: string | undefined,
): Promise<StreamRead> {
  const s = quoteSchema(schema);
  const found =
    tag === undefined
      ? undefined
      : (
          await tracedQuery<{ stream_version: number; state: unknown }>(
            client,
            "readSnapshot",
            `SELECT stream_version, state FROM ${s}.snapshots WHERE stream_id = $1 AND tag = $2`,
            [streamId, tag],
          )
        ).rows[0];
  const after = found?.stream_version ?? 0;
  const { rows } = await tracedQuery<EventRow>(
    client,
    "readStream",
    `SELECT ${eventColumns} FROM ${s}.events
      WHERE stream_id = $1 AND stream_version > $2 ORDER BY stream_version`,
    [streamId, after],
  );
  const events = rows.map(toStoredEvent);
  return {
    ...(found ? { snapshot: { version: after, state: found.state } } : {}),
    events,
    version: events.at(-1)?.streamVersion ?? after,
  };
}

/**
 * Keeps `state` as the stream's snapshot at `version`, in the transaction that appended up to
 * it. One per stream: a later version, or another tag (a decider whose state changed shape),
 * replaces it; an older one never does.
 */
export async function saveSnapshot(
  client: Queryable,
  schema: string,
  streamId: string,
  snapshot: { tag: string; version: number; state: unknown },
): Promise<void> {
  await tracedQuery(
    client,
    "saveSnapshot",
    `INSERT INTO ${quoteSchema(schema)}.snapshots AS s (stream_id, tag, stream_version, state)
     VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (stream_id) DO UPDATE
       SET tag = excluded.tag, stream_version = excluded.stream_version,
           state = excluded.state, taken_at = now()
     WHERE s.stream_version < excluded.stream_version OR s.tag <> excluded.tag`,
    [streamId, snapshot.tag, snapshot.version, JSON.stringify(snapshot.state)],
  );
}
