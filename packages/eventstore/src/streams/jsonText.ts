import { BULK_DATA_CHARS, cutToIds, longerThan } from "../messages/bulkData.ts";

/**
 * Event data whose JSON text its producer already holds: a bulk write's 1000 examples arrive
 * as JSON texts, and serializing the objects parsed from them again cost the dataset service
 * ~9 ms of an 8 MiB create, and measuring that text's UTF-8 size ~8 ms more. The text (and its
 * size) is kept beside the object, with the same identity through every layer that passes
 * `data` on, and the append stores it instead of `JSON.stringify(data)`.
 */
export interface JsonText {
  /** The text, in the pieces it was made of: written one after another, never joined here. */
  parts: readonly string[];
  /** The UTF-8 size of all of them. */
  bytes: number;
  /**
   * What the bus carries of a bulk write's data while its producer holds it: the JSON of
   * `cutToIds(data)`, when its JSON is over `BULK_DATA_CHARS` (as `bulkDataJson` cuts it;
   * `longerThan` tells of most without writing it; bulkData.ts). Its consumers
   * read a bulk write's records as their ids (the audit log's cut, which comes out the same);
   * 8 MiB of examples cost nats-server, the relay and identity ~0.25 s of CPU beside the next
   * request. Read back from the store after a restart, the data goes whole.
   */
  bus?: string | undefined;
}

const texts = new WeakMap<object, JsonText>();

/**
 * `data`, with the text to be stored for it: `parts` one after another. The caller vouches
 * that the text is JSON whose value is `data` (what `JSON.parse` gives of it deep-equals it)
 * and that `bytes` is its UTF-8 size; Postgres still parses it as `jsonb`.
 */
export function withJsonText<T extends object>(
  data: T,
  parts: readonly string[],
  bytes: number,
  bus?: string,
): T {
  texts.set(data, { parts, bytes, bus });
  return data;
}

/** The JSON text stored for `data` and its size: its producer's (`withJsonText`) or made here. */
export function jsonTextOf(data: unknown): JsonText {
  const known = typeof data === "object" && data !== null ? texts.get(data) : undefined;
  if (known) return known;
  const text = JSON.stringify(data ?? null);
  return { parts: [text], bytes: Buffer.byteLength(text) };
}

/**
 * `data` with what the bus carries of it when it is a bulk write's (over `BULK_DATA_CHARS`):
 * its records cut to their ids, as the audit log keeps them. For events whose records no
 * consumer reads from the bus (the audit log is the only one on their subjects): an experiment's
 * 500 evaluations went whole to nats-server and the audit consumer, twice per task run.
 */
export function withBusCut<T extends Record<string, unknown>>(data: T): T {
  if (!longerThan(data, BULK_DATA_CHARS)) return data;
  const text = JSON.stringify(data);
  return withJsonText(data, [text], Buffer.byteLength(text), JSON.stringify(cutToIds(data)));
}
