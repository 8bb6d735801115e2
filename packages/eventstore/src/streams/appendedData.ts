import type { DataText } from "../types.ts";

/**
 * The data of the large events this process appended, as the UTF-8 JSON text Postgres parsed
 * into their `jsonb` (or, for a bulk write, what the bus carries of it: jsonText.ts), held
 * until this process's relay publishes them. Without it the relay
 * read each one back (Postgres writing its `jsonb` out as text, the driver decoding it) and
 * encoded it again: for an 8 MiB dataset create, ~10 ms of decoding, ~5 ms of encoding and
 * Postgres' own output of 8 MiB, all on the cores the next request needs.
 *
 * Only a hint: the relay still reads which events to publish, in commit order, from the
 * table, and takes the data from here only for those it finds here (an event of a transaction
 * that rolled back is never read, and ages out). Nothing is held while no relay of this
 * process is the active one: another replica's relay, or this one after a restart, reads the
 * data from the table as before. What is held is bounded, oldest out first.
 */

/**
 * Smaller events are cheap to read back; holding them would only churn this map. A PATCH of
 * 1000 small examples (~60 KB) is above it: read back, it cost Postgres ~0.5 ms of output and
 * the relay a decode and an encode.
 */
export const HELD_MIN_BYTES = 16 * 1024;
/** Four 8 MiB creates not yet published; beyond that the relay reads the data back. */
export const HELD_MAX_BYTES = 32 * 1024 * 1024;

const held = new Map<string, DataText>();
let heldBytes = 0;
let leaders = 0;

/**
 * Holds appended data while the returned function has not been called: a relay of this
 * process leads from here on. When the last one stops leading, what is held is dropped.
 */
export function holdWhileLeading(): () => void {
  leaders++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--leaders > 0) return;
    held.clear();
    heldBytes = 0;
  };
}

/**
 * Holds the data just appended for `eventId` when `stored`, its text, is large enough to
 * matter: `bus` instead when the producer gave what the bus carries of it (jsonText.ts).
 */
export function holdAppended(eventId: string, stored: Uint8Array, bus?: string): void {
  if (leaders === 0 || stored.byteLength < HELD_MIN_BYTES || held.has(eventId)) return;
  const text = bus === undefined ? stored : Buffer.from(bus);
  held.set(eventId, { bytes: text, cut: bus !== undefined });
  heldBytes += text.byteLength;
  for (const id of held.keys()) {
    if (heldBytes <= HELD_MAX_BYTES) break;
    releaseAppended(id);
  }
}

/** What is held now: a copy, so later holds and releases do not change it. */
export const heldAppended = (): ReadonlyMap<string, DataText> => new Map(held);

/** Forgets `eventId`'s data: it was published, or will be read back. */
export function releaseAppended(eventId: string): void {
  const data = held.get(eventId);
  if (data === undefined) return;
  held.delete(eventId);
  heldBytes -= data.bytes.byteLength;
}
