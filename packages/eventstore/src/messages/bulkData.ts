import type { DataText } from "../types.ts";

/**
 * Event data longer than this, in JSON characters, is a bulk write's (1000 examples of a
 * dataset, a chunk of an 8 MiB create): the audit log keeps which records it touched, not a
 * second copy of their contents, and while its producer holds it the bus carries it the same
 * way (`withJsonText`'s `bus`). One bound for both, so the two cuts are one.
 */
export const BULK_DATA_CHARS = 16 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A record's ids: its `id` and every `…_id` member. */
function idsOf(r: unknown): unknown {
  if (!isRecord(r)) return r;
  const ids: Record<string, unknown> = {};
  for (const k in r) if (k === "id" || k.endsWith("_id")) ids[k] = r[k];
  return ids;
}

/**
 * Whether the JSON text of `value` has more than `max` characters, judged by a bound from
 * below (each string's and key's characters and quotes, nothing else) that stops once past
 * `max`: false means "maybe not", true means certainly.
 */
export function longerThan(value: unknown, max: number): boolean {
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") chars += v.length + 2;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isRecord(v))
      for (const k in v) {
        chars += k.length + 3;
        stack.push(v[k]);
      }
    if (chars > max) return true;
  }
  return false;
}

/** The data with each top-level array of records cut to their ids. */
export const cutToIds = (data: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Array.isArray(v) ? v.map(idsOf) : v]),
  );

/**
 * The data as JSON; over `BULK_DATA_CHARS`, each top-level array of records keeps their ids
 * only. A bulk event is known to be over it without writing its megabyte of JSON just to
 * measure it. Data already cut (as the bus may carry it) comes out the same: cutting ids to
 * their ids changes nothing, and whole or cut, their JSON is the same value.
 */
export function bulkDataJson(data: unknown): string {
  if (isRecord(data) && longerThan(data, BULK_DATA_CHARS)) return JSON.stringify(cutToIds(data));
  const full = JSON.stringify(data ?? null);
  if (full.length <= BULK_DATA_CHARS || !isRecord(data)) return full;
  return JSON.stringify(cutToIds(data));
}

/**
 * `bulkDataJson` of data that came as text: the text itself when it already is that (the bus's
 * cut of a bulk write, or a text within the bound, whose JSON is within it too), so a consumer
 * storing it need not parse and write again a PATCH's thousand records; otherwise
 * `bulkDataJson` of the data, which `data` parses.
 */
export function bulkDataText(text: DataText, data: () => unknown): string | Uint8Array {
  return text.cut || text.bytes.byteLength <= BULK_DATA_CHARS ? text.bytes : bulkDataJson(data());
}
