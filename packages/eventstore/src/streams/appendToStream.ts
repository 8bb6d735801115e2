import { randomUUID } from "node:crypto";
import { context, propagation } from "@opentelemetry/api";
import type { ClientBase } from "pg";
import { ConcurrencyError, EventTooLargeError } from "../errors.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import type { NewEvent, StoredEvent } from "../types.ts";
import { holdAppended } from "./appendedData.ts";
import { jsonTextOf, type JsonText } from "./jsonText.ts";
import type { ProjectionStatement } from "../commands/projectionStatement.ts";

/** Text parts shorter than this are joined before they are written (`jsonbArray`). */
const JOINED_CHARS = 4096;

/**
 * The events' data as one JSON array in `jsonb`'s binary wire format (a version byte, 1, then
 * the text), each text encoded once straight into one buffer at the size already measured for
 * the size rule. As a text parameter the driver measured an 8 MiB bulk write's UTF-8 again and
 * joined it into one more string before encoding it (~10 ms of the dataset's create). Each
 * event's text is also given as a view of the buffer, for the relay (appendedData.ts).
 */
function jsonbArray(texts: readonly JsonText[]): { param: Buffer; each: Buffer[] } {
  let size = 3 + Math.max(0, texts.length - 1); // the version byte, the brackets, the commas
  for (const t of texts) size += t.bytes;
  const out = Buffer.allocUnsafe(size);
  out[0] = 1;
  out[1] = 0x5b; // [
  let at = 2;
  const each = texts.map((t, i) => {
    if (i > 0) out[at++] = 0x2c; // ,
    const start = at;
    const end = at + t.bytes;
    // Small parts are joined into a few kilobytes before each write: a bulk event's thousands
    // of ids and punctuation, written one by one, were a native call each (~3x the time).
    let pending = "";
    const flush = () => {
      at += out.write(pending, at, "utf8");
      pending = "";
    };
    for (const part of t.parts) {
      if (part.length < JOINED_CHARS) {
        pending += part;
        if (pending.length >= JOINED_CHARS) flush();
      } else {
        if (pending) flush();
        at += out.write(part, at, "utf8");
      }
    }
    if (pending) flush();
    if (at !== end) {
      const real = t.parts.reduce((n, part) => n + Buffer.byteLength(part), 0);
      throw new TypeError(`event data said to be ${t.bytes} bytes of UTF-8 is ${real}`);
    }
    return out.subarray(start, end);
  });
  out[at] = 0x5d; // ]
  return { param: out, each };
}

/** 0 = the stream must not exist yet; "any" = append after whatever is there. */
export type ExpectedVersion = number | "any";

export interface AppendOptions {
  /** Upper bound for one event's encoded size, so the relay never meets a message NATS refuses. */
  maxEventBytes: number;
}

/**
 * The SQLSTATE of an append refused in its statement for a missing or younger predecessor:
 * refused there, not on the answer, so that a COMMIT sent right behind it (`CommitNow`) finds
 * the transaction aborted.
 */
const BEHIND = "AXS01";

// Room for the envelope around data and metadata: ids, positions, type, stream id, headers.
const envelopeBytes = 1024;

interface AppendedRow {
  global_position: string;
  transaction_id: string;
  stream_version: number;
  event_id: string;
  recorded_at: Date;
}

/**
 * One INSERT ... SELECT FROM unnest for the whole batch; data and metadata go as one JSON
 * array each, joined from the texts already made (as `jsonb[]` the driver would escape every
 * quote of every event into an array literal: ~1 ms for a 73 KB event, ~85 ms for 8 MiB; the
 * data goes in jsonb's binary format, `jsonbArray`). The expected version is checked in the
 * same statement: a missing predecessor is refused (BEHIND), and a taken version trips the
 * (stream_id, stream_version) unique constraint; both are a ConcurrencyError.
 *
 * The predecessor must also come from this transaction or an older one. Readers go in
 * (transaction_id, global_position) order, and a transaction id is taken at the first write,
 * not at commit: a transaction that wrote elsewhere first and then appends on top of a younger
 * transaction's event would be read before it, out of stream order. That case is a conflict
 * too, and the retry runs under a new, younger transaction id.
 *
 * With `projection` (one event's), the append is that projection's statement too (`appendSql`):
 * what the projection refuses fails the append, as its own error.
 *
 * What it refuses without the database (an event too large, a bad expected version) it throws
 * at once, before the statement is sent, not as a rejection: a caller that sends statements
 * behind the append, COMMIT among them (handleCommand.ts), so sends none.
 */
export function appendToStream(
  client: ClientBase,
  schema: string,
  streamId: string,
  expectedVersion: ExpectedVersion,
  events: readonly NewEvent[],
  options: AppendOptions,
  projection?: ProjectionStatement,
): Promise<StoredEvent[]> {
  if (events.length === 0) return Promise.resolve([]);
  if (expectedVersion !== "any" && !(Number.isInteger(expectedVersion) && expectedVersion >= 0)) {
    throw new TypeError(
      `expectedVersion must be a non-negative integer or "any": ${expectedVersion}`,
    );
  }
  const trace: Record<string, string> = {};
  propagation.inject(context.active(), trace);
  const metadata = events.map((event) => ({ ...trace, ...event.metadata }));
  const ids = events.map((event) => event.eventId ?? randomUUID());
  const data = events.map((event) => jsonTextOf(event.data));
  const meta = metadata.map((m) => JSON.stringify(m));
  events.forEach((event, i) => {
    const bytes = data[i]!.bytes + Buffer.byteLength(meta[i] ?? "") + envelopeBytes;
    if (bytes > options.maxEventBytes)
      throw new EventTooLargeError(event.type, bytes, options.maxEventBytes);
  });

  if (projection && events.length !== 1)
    throw new TypeError(`a projection goes in one append with one event, not ${events.length}`);
  const sql = appendSql(quoteSchema(schema), projection);
  const dataText = jsonbArray(data);
  return (async () => {
    let rows: AppendedRow[];
    try {
      ({ rows } = await tracedQuery<AppendedRow>(
        client,
        projection ? `appendToStream, ${projection.name}` : "appendToStream",
        sql,
        [
          ...(projection?.values ?? []),
          streamId,
          expectedVersion === "any" ? null : expectedVersion,
          ids,
          events.map((e) => e.type),
          `[${meta.join(",")}]`,
          // Last: the driver copies what it has written whenever a later parameter outgrows
          // its buffer, which after a bulk write's data was the whole of it.
          dataText.param,
        ],
      ));
    } catch (err) {
      if (isVersionConflict(err, schema))
        throw new ConcurrencyError(streamId, expectedVersion, { cause: err });
      throw err;
    }
    dataText.each.forEach((text, i) => holdAppended(ids[i]!, text, data[i]!.bus));

    const byId = new Map(rows.map((row) => [row.event_id, row]));
    return events.map((event, i) => {
      const row = byId.get(ids[i] ?? "") as AppendedRow;
      return {
        globalPosition: BigInt(row.global_position),
        transactionId: BigInt(row.transaction_id),
        streamId,
        streamVersion: row.stream_version,
        eventId: row.event_id,
        type: event.type,
        data: event.data,
        metadata: metadata[i] ?? {},
        recordedAt: row.recorded_at,
      };
    });
  })();
}

const RETURNED =
  "global_position::text, transaction_id::text, stream_version, event_id, recorded_at";

/**
 * The append's statement, its placeholders after the projection's values when there is one.
 * With a projection it is that projection's statement too: the insert is its `appended` item,
 * returning the event's data as written (no read back of the row, no second parse), and the
 * projection's check is evaluated beside the appended rows.
 */
function appendSql(s: string, projection: ProjectionStatement | undefined): string {
  const from = projection?.values.length ?? 0;
  const p = (i: number) => `$${from + i}`;
  const insert = `INSERT INTO ${s}.events (stream_id, stream_version, event_id, event_type, data, metadata)
       SELECT ${p(1)}, base.version + e.ordinal, e.event_id, e.event_type, e.data, e.metadata
       FROM base, ROWS FROM (unnest(${p(3)}::uuid[]), unnest(${p(4)}::text[]),
                             jsonb_array_elements(${p(6)}::jsonb), jsonb_array_elements(${p(5)}::jsonb))
         WITH ORDINALITY AS e(event_id, event_type, data, metadata, ordinal)
       ORDER BY e.ordinal`;
  const opening = `WITH expected AS (
         SELECT CASE WHEN ${p(2)}::int IS NULL
           THEN (SELECT coalesce(max(stream_version), 0) FROM ${s}.events WHERE stream_id = ${p(1)})
           ELSE ${p(2)}::int END AS version
       ), base AS (
         SELECT CASE WHEN x.version = 0 OR p.transaction_id <= pg_current_xact_id() THEN x.version
                ELSE ${s}.refuse('${BEHIND}', 'the stream is not at the expected version') END AS version
         FROM expected x
         LEFT JOIN ${s}.events p ON p.stream_id = ${p(1)} AND p.stream_version = x.version
       )`;
  if (!projection) return `${opening} ${insert} RETURNING ${RETURNED}`;
  return `${opening}, appended AS (
         ${insert}
         RETURNING global_position, transaction_id, stream_version, event_id, recorded_at, data
       ), ${projection.with}
       SELECT ${RETURNED}, ${projection.check ?? "null"} AS checked FROM appended`;
}

/**
 * Only the stream-version constraint and the predecessor's refusal are a conflict; a
 * projection's unique index is not.
 */
function isVersionConflict(err: unknown, schema: string): boolean {
  const e = err as { code?: string; constraint?: string; schema?: string };
  return (
    e.code === BEHIND ||
    (e.code === "23505" && e.constraint === "events_stream_version_key" && e.schema === schema)
  );
}
