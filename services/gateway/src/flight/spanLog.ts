import {
  DataType,
  StructRow,
  Vector,
  type Field,
  type RecordBatch,
  type Schema,
} from "apache-arrow";
import { DomainError } from "@argus/platform";
import { ExportTraceServiceRequest } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { AnyValue, KeyValue } from "@argus/proto/otlp/common/v1/common";
import {
  Span_SpanKind,
  Status_StatusCode,
  type Span,
  type Span_Event,
} from "@argus/proto/otlp/trace/v1/trace";
import { invalid } from "./requests.ts";
import { EVALUATIONS, SPAN_ID_COLUMN } from "./spans.ts";

/**
 * The official SDK's `spans.log` (`POST /v1/pandas_arrow`): a dataframe of spans, one row each,
 * in OpenInference's flattened column names (arize/spans/columns.py). The rows become one OTLP
 * ExportTraceServiceRequest whose resource names the project, as arize-otel names it, so the
 * spans go through the tracing service's OTLP ingestion (its checks, its storage, its
 * SpansReceived) and land exactly as spans exported over OTLP do. Every column is checked
 * before any row is read; a value that cannot be converted refuses the upload naming its row.
 */

const TRACE_ID_COLUMN = "context.trace_id";
const ATTRIBUTES_PREFIX = "attributes.";
const EVAL_PREFIX = `${EVALUATIONS.prefix}.`;
const SPAN_KIND_ATTRIBUTE = "openinference.span.kind";

/**
 * The SDK's list-of-dict columns (SpanColumnDataType.LIST_DICT): each item arrives as JSON
 * text of an object, which OpenInference's instrumentors send flattened under the item's index
 * (`llm.input_messages.0.message.role`); so are they stored here.
 */
const LIST_OF_OBJECTS = new Set([
  "embedding.embeddings",
  "llm.input_messages",
  "llm.output_messages",
  "llm.tools",
  "retrieval.documents",
  "reranker.input_documents",
  "reranker.output_documents",
]);

/** The span fields of the SDK's columns, beside `attributes.*` and `eval.*`. */
const FIELDS = [
  SPAN_ID_COLUMN,
  TRACE_ID_COLUMN,
  "parent_id",
  "name",
  "span_kind",
  "start_time",
  "end_time",
  "status_code",
  "status_message",
  "events",
] as const;
type FieldName = (typeof FIELDS)[number];
const REQUIRED: readonly FieldName[] = [SPAN_ID_COLUMN, TRACE_ID_COLUMN, "name", "start_time"];

const STATUS: Readonly<Record<string, Status_StatusCode>> = {
  UNSET: Status_StatusCode.STATUS_CODE_UNSET,
  OK: Status_StatusCode.STATUS_CODE_OK,
  ERROR: Status_StatusCode.STATUS_CODE_ERROR,
};

/**
 * Whether an upload to `/v1/pandas_arrow` is `spans.log`'s: update_evaluations sends the span
 * ids and `eval.*` columns only; log sends spans (their trace ids, names, times, …).
 */
export function isSpanLog(schema: Schema): boolean {
  return schema.fields.some((f) => f.name !== SPAN_ID_COLUMN && !f.name.startsWith(EVAL_PREFIX));
}

const typeOf = (field: Field): DataType =>
  DataType.isDictionary(field.type) ? field.type.dictionary : field.type;

const isText = (t: DataType) =>
  DataType.isUtf8(t) || DataType.isLargeUtf8(t) || DataType.isUtf8View(t);

const isList = (t: DataType) =>
  DataType.isList(t) || DataType.isLargeList(t) || DataType.isFixedSizeList(t);

export interface SpanLogLayout {
  fields: Partial<Record<FieldName, string>>;
  /** `attributes.<key>` columns: the column and the attribute key. */
  attributes: { column: string; key: string; listOfObjects: boolean }[];
  /** The `eval.*` columns (evals_dataframe's, joined by the SDK): written as evaluations. */
  evaluations: string[];
}

function requireType(field: Field, ok: boolean, what: string): void {
  if (!ok)
    throw invalid(
      `column ${JSON.stringify(field.name)} has Arrow type ${String(field.type)}: it must hold ${what}`,
    );
}

/** An attribute column's type: text, numbers, booleans, lists or structs of them. */
function attributeTypeOk(t: DataType): boolean {
  if (isText(t) || DataType.isInt(t) || DataType.isFloat(t) || DataType.isBool(t)) return true;
  if (DataType.isNull(t)) return true;
  if (isList(t)) return attributeTypeOk((t as DataType & { valueType: DataType }).valueType);
  if (DataType.isStruct(t)) return t.children.every((c) => attributeTypeOk(typeOf(c)));
  return false;
}

/** The columns of a log upload, checked before any row is read. */
export function spanLogLayout(schema: Schema): SpanLogLayout {
  const layout: SpanLogLayout = { fields: {}, attributes: [], evaluations: [] };
  const seen = new Set<string>();
  for (const field of schema.fields) {
    const name = field.name;
    if (seen.has(name)) throw invalid(`column ${JSON.stringify(name)} appears twice in the schema`);
    seen.add(name);
    const t = typeOf(field);
    if ((FIELDS as readonly string[]).includes(name)) {
      const f = name as FieldName;
      if (f === "start_time" || f === "end_time")
        requireType(field, DataType.isInt(t) || DataType.isNull(t), "integer nanoseconds (int64)");
      else if (f === "events")
        requireType(
          field,
          DataType.isNull(t) ||
            (isList(t) && isText((t as DataType & { valueType: DataType }).valueType)),
          "a list of JSON text objects",
        );
      else requireType(field, isText(t) || DataType.isNull(t), "text");
      layout.fields[f] = name;
    } else if (name.startsWith(ATTRIBUTES_PREFIX) && name.length > ATTRIBUTES_PREFIX.length) {
      requireType(
        field,
        attributeTypeOk(t),
        "text, numbers, booleans, or lists or structs of them",
      );
      const key = name.slice(ATTRIBUTES_PREFIX.length);
      layout.attributes.push({ column: name, key, listOfObjects: LIST_OF_OBJECTS.has(key) });
    } else if (name.startsWith(EVAL_PREFIX)) {
      layout.evaluations.push(name);
    } else {
      throw invalid(
        `column ${JSON.stringify(name)} is not a span column: spans.log sends ${FIELDS.join(", ")}, attributes.<key> and eval.<name>.<label|score|explanation>`,
      );
    }
  }
  for (const f of REQUIRED)
    if (layout.fields[f] === undefined)
      throw invalid(`the upload has no ${JSON.stringify(f)} column, which every span needs`);
  return layout;
}

// --- values ---

type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

const keyValue = (key: string, value: AnyValue): KeyValue => ({ key, keyStrindex: 0, value });

/** A JSON value as OTLP's AnyValue, as an OTel SDK would send it. */
function anyValue(v: Json): AnyValue {
  if (typeof v === "string") return { value: { $case: "stringValue", value: v } };
  if (typeof v === "boolean") return { value: { $case: "boolValue", value: v } };
  if (typeof v === "number")
    return Number.isSafeInteger(v)
      ? { value: { $case: "intValue", value: BigInt(v) } }
      : { value: { $case: "doubleValue", value: v } };
  if (Array.isArray(v))
    return { value: { $case: "arrayValue", value: { values: v.map(anyValue) } } };
  if (v === null) return {};
  return {
    value: {
      $case: "kvlistValue",
      value: { values: Object.entries(v).map(([key, x]) => keyValue(key, anyValue(x))) },
    },
  };
}

const isObject = (v: Json): v is { [k: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * OpenInference's flattening (openinference-instrumentation `_flatten`): objects by dotted
 * keys, lists of objects by index, other lists kept as arrays; nulls left out.
 */
function flatten(key: string, v: Json, out: KeyValue[]): void {
  if (v === null) return;
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) flatten(`${key}.${k}`, x, out);
    return;
  }
  if (Array.isArray(v) && v.length > 0 && v.every(isObject)) {
    v.forEach((x, i) => flatten(`${key}.${i}`, x, out));
    return;
  }
  out.push(keyValue(key, anyValue(v)));
}

/** A value as apache-arrow reads it → JSON (struct rows and lists included); undefined: none. */
function plain(value: unknown): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "bigint")
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  // pandas' missing value is a NaN: no value, as OTLP would not send the attribute.
  if (typeof value === "number") return Number.isNaN(value) ? undefined : value;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (value instanceof Vector || ArrayBuffer.isView(value))
    return Array.from(value as Iterable<unknown>, (x) => plain(x) ?? null);
  if (value instanceof StructRow) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(value.toJSON())) {
      const j = plain(x);
      if (j !== undefined) out[k] = j;
    }
    return out;
  }
  return undefined;
}

function parseObject(
  text: string,
  where: () => string,
  reviver?: (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown,
): { [k: string]: Json } {
  let v: unknown;
  try {
    v = JSON.parse(text, reviver);
  } catch {
    throw invalid(`${where()} is not JSON text of an object`);
  }
  if (!isObject(v as Json)) throw invalid(`${where()} is not JSON text of an object`);
  return v as { [k: string]: Json };
}

/** Hex text → bytes; what is not hex is no id (the tracing service refuses the span). */
function idBytes(text: string | null): Buffer {
  const t = text?.trim() ?? "";
  return /^(?:[0-9a-fA-F]{2})*$/.test(t) ? Buffer.from(t, "hex") : Buffer.alloc(0);
}

/** OTLP's times are fixed64: nanoseconds since the epoch, neither before it nor past 2^64. */
const MAX_NANOS = (1n << 64n) - 1n;

function epochNanos(n: bigint, where: () => string): bigint {
  if (n < 0n || n > MAX_NANOS)
    throw invalid(`${where()} must be nanoseconds since the epoch (0 to 2^64 - 1), not ${n}`);
  return n;
}

function nanos(v: unknown, where: () => string): bigint {
  if (v === null || v === undefined) return 0n;
  return epochNanos(typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v))), where);
}

/**
 * The digits of each parsed object's own `timestamp` when it is an integer: nanoseconds since
 * the epoch are past 2^53, so the number JSON.parse makes of them is off by up to a few hundred
 * nanoseconds, which rounds down to the microsecond before (a span's event 1 µs early).
 */
function timestampDigits(): {
  reviver: (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;
  of(holder: object): string | undefined;
} {
  const digits = new WeakMap<object, string>();
  return {
    reviver(key, value, context) {
      const source = context?.source;
      if (key === "timestamp" && typeof value === "number" && source && /^\d+$/.test(source))
        digits.set(this as object, source);
      return value;
    },
    of: (holder) => digits.get(holder),
  };
}

/**
 * An event's time: integer nanoseconds (exact, from `digits` when given), or an ISO date-time;
 * absent: the span's start.
 */
function eventTime(
  v: Json | undefined,
  start: bigint,
  where: () => string,
  digits?: string,
): bigint {
  if (v === undefined || v === null) return start;
  const at = () => `${where()}: its timestamp`;
  if (typeof v === "number" && digits !== undefined) return epochNanos(BigInt(digits), at);
  if (typeof v === "number" && Number.isFinite(v)) return epochNanos(BigInt(Math.trunc(v)), at);
  if (typeof v === "string" && !Number.isNaN(Date.parse(v)))
    return epochNanos(BigInt(Date.parse(v)) * 1_000_000n, at);
  throw invalid(`${at()} must be integer nanoseconds or an ISO date-time`);
}

function eventsOf(items: Json | undefined, start: bigint, where: () => string): Span_Event[] {
  if (!Array.isArray(items)) return [];
  return items.map((item, i) => {
    const at = () => `${where()}, event ${i}`;
    const exact = timestampDigits();
    const e = parseObject(String(item), at, exact.reviver);
    const attributes: KeyValue[] = [];
    // The SDK sends an event's attributes as JSON text of an object (its jsonify of a dict).
    const attrs = typeof e.attributes === "string" ? parseObject(e.attributes, at) : e.attributes;
    if (isObject(attrs ?? null))
      for (const [k, x] of Object.entries(attrs!)) flatten(k, x, attributes);
    return {
      name: typeof e.name === "string" ? e.name : "",
      timeUnixNano: eventTime(e.timestamp, start, at, exact.of(e)),
      attributes,
      droppedAttributesCount: 0,
    };
  });
}

/** One row of a batch as an OTLP span. */
function spanOf(
  batch: RecordBatch,
  layout: SpanLogLayout,
  row: number,
  rowNumber: number,
  vectors: {
    fields: Partial<Record<FieldName, Vector>>;
    attributes: (Vector | null)[];
  },
): Span {
  const get = (f: FieldName): unknown => vectors.fields[f]?.get(row) ?? null;
  const where = (column: string) => () => `row ${rowNumber}, column ${JSON.stringify(column)}`;
  const start = nanos(get("start_time"), where("start_time"));
  const end =
    layout.fields.end_time === undefined ? start : nanos(get("end_time"), where("end_time"));
  const attributes: KeyValue[] = [];
  layout.attributes.forEach((a, i) => {
    const value = plain(vectors.attributes[i]!.get(row));
    if (value === undefined) return;
    if (a.listOfObjects && Array.isArray(value)) {
      // The SDK's missing list of objects is an empty one (its jsonify of None).
      if (value.length === 0) return;
      const items = value.map((x) => (typeof x === "string" ? parseObject(x, where(a.column)) : x));
      flatten(a.key, items, attributes);
      return;
    }
    // A struct is a dict the SDK did not turn into JSON text: flattened as OpenInference does.
    flatten(a.key, value, attributes);
  });
  const kind = get("span_kind");
  if (
    typeof kind === "string" &&
    kind !== "" &&
    !attributes.some((a) => a.key === SPAN_KIND_ATTRIBUTE)
  )
    attributes.push(keyValue(SPAN_KIND_ATTRIBUTE, anyValue(kind)));
  const statusText = get("status_code");
  let code: Status_StatusCode = Status_StatusCode.STATUS_CODE_UNSET;
  if (typeof statusText === "string" && statusText.trim() !== "") {
    const c = STATUS[statusText.trim().toUpperCase()];
    if (c === undefined)
      throw invalid(
        `${where("status_code")()} must be OK, ERROR or UNSET, not ${JSON.stringify(statusText)}`,
      );
    code = c;
  }
  const events = eventsOf(plain(get("events")), start, where("events"));
  return {
    traceId: idBytes(get(TRACE_ID_COLUMN) as string | null),
    spanId: idBytes(get(SPAN_ID_COLUMN) as string | null),
    traceState: "",
    parentSpanId: idBytes(get("parent_id") as string | null),
    flags: 0,
    name: (get("name") as string | null) ?? "",
    kind: Span_SpanKind.SPAN_KIND_INTERNAL,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes,
    droppedAttributesCount: 0,
    events,
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code, message: (get("status_message") as string | null) ?? "" },
  };
}

/**
 * The OTLP request of a log upload: one resource naming the project, its spans in row order
 * (so the tracing service's "span i" is row i). Its encoded size is bounded by `maxBytes`, the
 * OTLP request's own limit: spans too large to be exported over OTLP in one request are too
 * large here.
 */
export async function spanLogExport(
  layout: SpanLogLayout,
  batches: AsyncIterable<RecordBatch> | Iterable<RecordBatch>,
  projectName: string,
  maxBytes: number,
): Promise<{ payload: Buffer; spans: number }> {
  const spans: Span[] = [];
  let base = 0;
  for await (const batch of batches) {
    const child = (column: string | undefined) =>
      column === undefined ? undefined : (batch.getChild(column) ?? undefined);
    const vectors = {
      fields: Object.fromEntries(
        FIELDS.map((f) => [f, child(layout.fields[f])]).filter(([, v]) => v !== undefined),
      ) as Partial<Record<FieldName, Vector>>,
      attributes: layout.attributes.map((a) => batch.getChild(a.column)),
    };
    for (let row = 0; row < batch.numRows; row++)
      spans.push(spanOf(batch, layout, row, base + row, vectors));
    base += batch.numRows;
  }
  const request: ExportTraceServiceRequest = {
    resourceSpans: [
      {
        resource: {
          attributes: [keyValue("openinference.project.name", anyValue(projectName))],
          droppedAttributesCount: 0,
          entityRefs: [],
        },
        scopeSpans: [{ spans, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  };
  const payload = Buffer.from(ExportTraceServiceRequest.encode(request).finish());
  if (payload.length > maxBytes)
    throw new DomainError(
      "payload-too-large",
      `the upload's ${spans.length} spans take ${payload.length} bytes as an OTLP request, more than the ${maxBytes} accepted in one; log fewer rows per call`,
    );
  return { payload, spans: spans.length };
}
