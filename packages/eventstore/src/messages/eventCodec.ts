import type { ConsumedEvent, StoredEvent } from "../types.ts";

/**
 * The JSON body of a published event; 64-bit positions travel as decimal strings. `data` is
 * always its last member (`encodeEventWithData`), so a consumer may take its text as it came
 * (`decodeEventLazily`). `dataCut`: the data is a bulk write's cut to its records' ids
 * (bulkData.ts), as the producer's bus carries it.
 */
interface WireEvent {
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: string;
  metadata: Record<string, unknown>;
  globalPosition: string;
  transactionId: string;
  recordedAt: string;
  dataCut?: true;
  data: unknown;
}

export class UndecodableEventError extends Error {
  override readonly name = "UndecodableEventError";
}

const decoder = new TextDecoder("utf-8", { fatal: true });

export function encodeEvent(event: StoredEvent): Uint8Array {
  return encodeEventWithData(event, JSON.stringify(event.data));
}

/**
 * The same payload from the event's data as JSON text, or that text's UTF-8 (the relay's:
 * Postgres' own text of the `jsonb`, or the text appended, so a large event is neither parsed
 * into objects nor stringified again on its way out). `dataJson` must be one JSON value.
 */
export function encodeEventWithData(
  event: Omit<StoredEvent, "data">,
  dataJson: string | Uint8Array,
  dataCut = false,
): Uint8Array {
  const wire: Omit<WireEvent, "data"> = {
    eventId: event.eventId,
    streamId: event.streamId,
    streamVersion: event.streamVersion,
    type: event.type,
    metadata: event.metadata,
    globalPosition: event.globalPosition.toString(),
    transactionId: event.transactionId.toString(),
    recordedAt: event.recordedAt.toISOString(),
    ...(dataCut && { dataCut: true }),
  };
  const head = `${JSON.stringify(wire).slice(0, -1)},"data":`;
  // Written in place: joining the texts first would copy a bulk event's megabyte once more
  // before encoding it (an 8 MiB dataset create's events: ~13 ms against ~5 ms).
  const headBytes = Buffer.byteLength(head);
  const dataBytes =
    typeof dataJson === "string" ? Buffer.byteLength(dataJson) : dataJson.byteLength;
  const payload = Buffer.allocUnsafe(headBytes + dataBytes + 1);
  payload.write(head, 0);
  if (typeof dataJson === "string") payload.write(dataJson, headBytes);
  else payload.set(dataJson, headBytes);
  payload[headBytes + dataBytes] = 0x7d; // }
  return payload;
}

export function decodeEvent(payload: Uint8Array): StoredEvent {
  const wire = parsed(payload);
  const head = headOf(wire);
  if (!("data" in wire)) throw new UndecodableEventError("payload is not an argus event");
  return { ...head, data: wire.data };
}

/**
 * The event with its data's bytes as they came (`dataText`), parsed into `data` only when that
 * is first read: a consumer that stores a bulk write's text as it is (the audit log) never
 * parses its thousand records. The head is checked as `decodeEvent` checks it; the data's JSON
 * only when read, where bad JSON throws UndecodableEventError.
 */
export function decodeEventLazily(payload: Uint8Array): ConsumedEvent {
  const member = dataMember(payload);
  if (!member || payload[payload.length - 1] !== CLOSE_BRACE)
    throw new UndecodableEventError("payload is not an argus event");
  const headEnd = payload[member.before] === COMMA ? member.before : member.before + 1;
  const head = parsed(payload.subarray(0, headEnd), "}");
  const bytes = payload.subarray(member.value, payload.length - 1);
  let data: unknown;
  let read = false;
  return {
    ...headOf(head),
    dataText: { bytes, cut: head.dataCut === true },
    get data() {
      if (!read) {
        data = parsed(bytes);
        read = true;
      }
      return data;
    },
  };
}

/** The JSON value of UTF-8 `bytes` (and `tail`), or UndecodableEventError. */
function parsed(bytes: Uint8Array, tail = ""): Partial<Record<keyof WireEvent, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes) + tail);
  } catch (err) {
    throw new UndecodableEventError(`payload is not UTF-8 JSON: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return value as Partial<Record<keyof WireEvent, unknown>>;
}

function headOf(wire: Partial<Record<keyof WireEvent, unknown>>): Omit<StoredEvent, "data"> {
  if (typeof wire !== "object" || wire === null)
    throw new UndecodableEventError("payload is not an object");
  const {
    eventId,
    streamId,
    streamVersion,
    type,
    metadata,
    globalPosition,
    transactionId,
    recordedAt,
  } = wire;
  const recorded = new Date(typeof recordedAt === "string" ? recordedAt : Number.NaN);
  if (
    typeof eventId !== "string" ||
    typeof streamId !== "string" ||
    !Number.isInteger(streamVersion) ||
    typeof type !== "string" ||
    typeof metadata !== "object" ||
    metadata === null ||
    !isDecimal(globalPosition) ||
    !isDecimal(transactionId) ||
    Number.isNaN(recorded.getTime())
  ) {
    throw new UndecodableEventError("payload is not an argus event");
  }
  return {
    eventId,
    streamId,
    streamVersion: streamVersion as number,
    type,
    metadata: metadata as Record<string, unknown>,
    globalPosition: BigInt(globalPosition),
    transactionId: BigInt(transactionId),
    recordedAt: recorded,
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const CLOSE_BRACE = 0x7d;
const DATA_KEY = new TextEncoder().encode('"data"');
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * Where the payload's top-level `data` member is: `before`, the `{` or `,` ahead of its key, and
 * `value`, where its value starts; undefined when there is none. Only the head ahead of it is
 * read (strings skipped whole, depth counted), never the data.
 */
function dataMember(p: Uint8Array): { before: number; value: number } | undefined {
  let depth = 0;
  let before = -1; // at depth 1, the `{` or `,` a key follows; -1 once that key is read
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === QUOTE) {
      const key = depth === 1 && before >= 0;
      if (key && DATA_KEY.every((b, k) => p[i + k] === b)) {
        let at = i + DATA_KEY.length;
        while (isSpace(p[at])) at++;
        if (p[at] !== COLON) return undefined;
        at++;
        while (isSpace(p[at])) at++;
        return { before, value: at };
      }
      if (key) before = -1;
      for (i++; i < p.length && p[i] !== QUOTE; i++) if (p[i] === BACKSLASH) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth === 1) before = i;
    } else if (c === CLOSE_BRACE || c === 0x5d) depth--;
    else if (c === COMMA && depth === 1) before = i;
  }
  return undefined;
}

function isDecimal(value: unknown): value is string {
  return typeof value === "string" && /^\d{1,20}$/.test(value);
}
