import {
  BULK_DATA_CHARS,
  chunkBySize,
  EVENT_PAYLOAD_BYTES,
  longerThan,
  withJsonText,
} from "@argus/eventstore";
import type { DatasetExamplesEvent, ExampleFields } from "@argus/contracts";
import { uuidv7 } from "@argus/platform";
import type { ExampleUpdate, ParsedExample } from "./exampleRules.ts";

/** One event carries at most this much example text (a write of 1000 large examples is several). */
export const EVENT_EXAMPLE_BYTES = EVENT_PAYLOAD_BYTES;

/** Room for an example's id and punctuation in an event beside its fields. */
const PER_EXAMPLE_OVERHEAD = 64;

/** `n` fresh ids in ascending order: examples list in id order, so in the order they came. */
export const orderedIds = (n: number, now: Date): string[] =>
  Array.from({ length: n }, () => uuidv7(now.getTime())).sort();

export interface Target {
  datasetId: string;
  spaceId: string;
  versionId: string;
  now: Date;
}

const chunks = <E extends { bytes: number }>(examples: readonly E[]) =>
  chunkBySize(examples, (e) => e.bytes + PER_EXAMPLE_OVERHEAD, EVENT_EXAMPLE_BYTES);

/**
 * What the bus carries of a bulk event's examples (jsonText.ts): the JSON of `cutToIds`'
 * records, `[{"id":…},…]`, from the ids' JSON texts, or from uuids with `quote` set to `"` (a
 * uuid's JSON is its text in quotes). One join, not a string per id (~40 against ~100 µs for
 * a PATCH's 1000). One place for both the inserts' and the updates' events.
 */
const idRecordsText = (ids: readonly string[], quote: "" | '"' = ""): string =>
  ids.length === 0 ? "[]" : `[{"id":${quote}${ids.join(`${quote}},{"id":${quote}`)}${quote}}]`;

const base = (t: Target) => ({
  dataset_id: t.datasetId,
  space_id: t.spaceId,
  version_id: t.versionId,
  at: t.now.toISOString(),
});

/** The JSON text of a bulk event's data up to its examples' array. */
const examplesOpen = (head: ReturnType<typeof base>) =>
  `${JSON.stringify(head).slice(0, -1)},"examples":`;

/**
 * A bulk event's data, with its JSON text made from the examples' own texts (each a valid
 * object's, as parseExamples took it) rather than by serializing their parsed fields again.
 * Written with as few strings as it can: for a PATCH of 1000 small examples, measuring each
 * piece's UTF-8 and growing the bus's text one example at a time cost ~0.5 ms of the request's
 * path (and its garbage), four times what they cost now.
 */
function examplesData(
  t: Target,
  examples: readonly { id: string; fields: ExampleFields; json: string; bytes: number }[],
) {
  const head = base(t);
  const data = { ...head, examples: examples.map(({ id, fields }) => ({ id, fields })) };
  // The text in pieces (the store writes them one after another): the examples' own texts
  // are never copied into one string here. Sized from the pieces: each example's text was
  // measured once, when it was parsed; the rest is ASCII but for the ids' characters, whose
  // UTF-8 surplus is measured once for all of them.
  const open = examplesOpen(head);
  const parts = [open, "["];
  const ids = examples.map((e) => JSON.stringify(e.id));
  let bytes = Buffer.byteLength(open) + "[]}".length;
  examples.forEach((e, i) => {
    const start = `${i > 0 ? "," : ""}{"id":${ids[i]!},"fields":`;
    parts.push(start, e.json, "}");
    bytes += start.length + e.bytes + 1;
  });
  parts.push("]}");
  const idChars = ids.join("");
  bytes += Buffer.byteLength(idChars) - idChars.length;
  const bus = longerThan(data, BULK_DATA_CHARS) ? `${open}${idRecordsText(ids)}}` : undefined;
  return withJsonText(data, parts, bytes, bus);
}

/** New examples as events that each fit one NATS message. */
export function insertedEvents(
  t: Target,
  examples: readonly ParsedExample[],
  ids: readonly string[],
): DatasetExamplesEvent[] {
  const withIds = examples.map((e, i) => ({ ...e, id: ids[i]! }));
  return chunks(withIds).map((chunk) => ({
    type: "DatasetExamplesInserted",
    data: examplesData(t, chunk),
  }));
}

/**
 * An update's examples, with their records as events carry them (`{id, fields}`) and the JSON
 * text of all of them, made in one call (a thousand calls, one per example, cost ~0.3 ms more
 * of a PATCH's path): it is the event's `examples` when they fit one event, and its size
 * bounds each example's. Their ids are uuids: an update keeps no other (spec 7).
 */
export interface UpdateBatch {
  examples: readonly ExampleUpdate[];
  records: { id: string; fields: ExampleFields }[];
  text: string;
  /** The text's UTF-8 size. */
  bytes: number;
  /**
   * The records cut to their ids, as the bus carries a bulk event's (`[{"id":…},…]`; a uuid's
   * JSON is its text in quotes), made with the text: both while BEGIN is in flight.
   */
  idsText: string;
}

export function updateBatch(examples: readonly ExampleUpdate[]): UpdateBatch {
  const records = examples.map(({ id, fields }) => ({ id, fields }));
  const text = JSON.stringify(records);
  const idsText = idRecordsText(
    records.map((r) => r.id),
    '"',
  );
  return { examples, records, text, bytes: Buffer.byteLength(text), idsText };
}

/** Field merges into existing examples, as events that each fit one NATS message. */
export function updatedEvents(t: Target, batch: UpdateBatch): DatasetExamplesEvent[] {
  if (batch.records.length === 0) return [];
  if (batch.bytes > EVENT_EXAMPLE_BYTES) {
    const measured = batch.records.map((r) => {
      const json = JSON.stringify(r.fields);
      return { ...r, json, bytes: Buffer.byteLength(json) };
    });
    return chunks(measured).map((chunk) => ({
      type: "DatasetExamplesUpdated",
      data: examplesData(t, chunk),
    }));
  }
  const head = base(t);
  const open = examplesOpen(head);
  const data = { ...head, examples: batch.records };
  // Over the bound, what the bus carries: the JSON of `cutToIds(data)`.
  const bus =
    open.length + batch.text.length + 1 > BULK_DATA_CHARS ? `${open}${batch.idsText}}` : undefined;
  return [
    {
      type: "DatasetExamplesUpdated",
      data: withJsonText(
        data,
        [open, batch.text, "}"],
        Buffer.byteLength(open) + batch.bytes + 1,
        bus,
      ),
    },
  ];
}

/** Removals from one version (ids are small: 1000 fit one event). */
export function deletedEvents(t: Target, ids: readonly string[]): DatasetExamplesEvent[] {
  return ids.length === 0
    ? []
    : [{ type: "DatasetExamplesDeleted", data: { ...base(t), example_ids: [...ids] } }];
}
