import type { KeyValue } from "@argus/proto/otlp/common/v1/common";
import {
  SPAN_KINDS,
  type DecodedExport,
  type JsonValue,
  type ResourceBatch,
  type SpanKind,
  type SpanRecord,
  type SpanStatusCode,
} from "../spans/spanRecord.ts";
import { OtlpDecodeError } from "./errors.ts";
import { readJsonExport } from "./json.ts";
import {
  MAX_ATTRIBUTES_PER_SPAN,
  MAX_EVENTS_PER_SPAN,
  MAX_SPANS_PER_REQUEST,
  MAX_TIME_UNIX_NANO,
} from "./limits.ts";
import { readProtobufExport } from "./protobuf.ts";
import { attributeObject, storable } from "./values.ts";
import type { WireResourceSpans, WireSpan } from "./wire.ts";

export { OtlpDecodeError } from "./errors.ts";
export * from "./limits.ts";

/** The two OTLP/HTTP body encodings (OTLP/gRPC is protobuf). */
export type OtlpEncoding = "protobuf" | "json";

const PROJECT_NAME_KEYS = ["openinference.project.name", "arize.project.name"];
const SPAN_KIND_KEY = "openinference.span.kind";
const KINDS = new Map<string, SpanKind>(SPAN_KINDS.map((k) => [k, k]));
const STATUS: Record<number, SpanStatusCode> = { 0: "UNSET", 1: "OK", 2: "ERROR" };
const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZEROS = /^0*$/;

/**
 * Decodes an OTLP ExportTraceServiceRequest into storable spans, grouped by the project their
 * resource names. Spans that cannot be stored are left out and counted, the rest kept (OTLP partial
 * success); resources left without spans yield no batch.
 *
 * @throws OtlpDecodeError when the body cannot be read at all or holds too many spans.
 */
export function decodeExport(payload: Uint8Array, encoding: OtlpEncoding): DecodedExport {
  const resources = encoding === "protobuf" ? readProtobufExport(payload) : readJsonExport(payload);
  const total = resources.reduce((n, r) => n + r.spans.length, 0);
  if (total > MAX_SPANS_PER_REQUEST) {
    throw new OtlpDecodeError(
      `the request holds ${total} spans, more than the ${MAX_SPANS_PER_REQUEST} accepted in one export; send smaller batches`,
    );
  }
  let rejectedSpans = 0;
  let firstReason = "";
  const batches: ResourceBatch[] = [];
  resources.forEach((resource: WireResourceSpans, r) => {
    const spans: SpanRecord[] = [];
    resource.spans.forEach((span, s) => {
      const reason = whyUnstorable(span);
      if (reason === undefined) {
        spans.push(spanRecord(span));
        return;
      }
      rejectedSpans += 1;
      if (firstReason === "") firstReason = `span ${s} of resource ${r} ${reason}`;
    });
    if (spans.length > 0)
      batches.push({ projectName: projectName(resource.resourceAttributes), spans });
  });
  const errorMessage =
    rejectedSpans === 0
      ? ""
      : `${rejectedSpans} ${rejectedSpans === 1 ? "span" : "spans"} rejected: ${firstReason}`;
  return { batches, rejectedSpans, errorMessage };
}

function whyUnstorable(span: WireSpan): string | undefined {
  if (!TRACE_ID.test(span.traceId) || ZEROS.test(span.traceId)) {
    return "has no valid trace_id (16 bytes, not all zero)";
  }
  if (!SPAN_ID.test(span.spanId) || ZEROS.test(span.spanId)) {
    return "has no valid span_id (8 bytes, not all zero)";
  }
  if (span.parentSpanId !== "" && !SPAN_ID.test(span.parentSpanId)) {
    return "has an invalid parent_span_id (must be empty or 8 bytes)";
  }
  if (span.startTimeUnixNano === 0n) return "has no start_time_unix_nano";
  if (
    span.startTimeUnixNano > MAX_TIME_UNIX_NANO ||
    span.endTimeUnixNano > MAX_TIME_UNIX_NANO ||
    span.events.some((e) => e.timeUnixNano > MAX_TIME_UNIX_NANO)
  ) {
    return "has a time beyond 2^63-1 nanoseconds";
  }
  return undefined;
}

function spanRecord(span: WireSpan): SpanRecord {
  const attributes = attributeObject(span.attributes, MAX_ATTRIBUTES_PER_SPAN);
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    // An all-zero parent is how some SDKs write "no parent".
    parentId: ZEROS.test(span.parentSpanId) ? "" : span.parentSpanId,
    name: storable(span.name),
    kind: spanKind(attributes[SPAN_KIND_KEY]),
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano:
      span.endTimeUnixNano < span.startTimeUnixNano ? span.startTimeUnixNano : span.endTimeUnixNano,
    statusCode: STATUS[span.statusCode] ?? "UNSET",
    statusMessage: storable(span.statusMessage),
    attributes,
    events: span.events.slice(0, MAX_EVENTS_PER_SPAN).map((e) => ({
      name: storable(e.name),
      timeUnixNano: e.timeUnixNano,
      attributes: attributeObject(e.attributes, MAX_ATTRIBUTES_PER_SPAN),
    })),
  };
}

/** The public kind is OpenInference's attribute; the OTLP span kind (server, client…) is not it. */
function spanKind(value: JsonValue | undefined): SpanKind {
  return typeof value === "string" ? (KINDS.get(value.toUpperCase()) ?? "UNKNOWN") : "UNKNOWN";
}

function projectName(resourceAttributes: readonly KeyValue[]): string {
  for (const key of PROJECT_NAME_KEYS) {
    const value = resourceAttributes.findLast((kv) => kv.key === key)?.value?.value;
    if (value?.$case === "stringValue" && value.value !== "") return storable(value.value);
  }
  return "";
}
