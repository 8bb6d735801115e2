import type { AnyValue, KeyValue } from "@argus/proto/otlp/common/v1/common";
import { OtlpDecodeError, describeError } from "./errors.ts";
import { MAX_VALUE_NESTING } from "./limits.ts";
import type { WireEvent, WireResourceSpans, WireSpan } from "./wire.ts";

/*
 * OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) read by hand: the
 * generated code has no JSON methods, and OTLP departs from the protobuf JSON mapping anyway (hex
 * ids). Like protobuf JSON parsers, this accepts lowerCamelCase and snake_case field names, null
 * for an absent field, enums as numbers or names, and 64-bit integers as strings or numbers;
 * unknown fields are ignored. A value of the wrong JSON type refuses the whole request.
 */

type JsonObject = { readonly [key: string]: unknown };

const STATUS_CODES = ["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];
const UNSIGNED = /^\d+$/;
const SIGNED = /^-?\d+$/;
const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const utf8 = new TextDecoder();

/** Reads an OTLP/JSON ExportTraceServiceRequest. */
export function readJsonExport(payload: Uint8Array): WireResourceSpans[] {
  const text = utf8.decode(payload);
  let document: unknown;
  try {
    document = LONG_INTEGER_LITERAL.test(text)
      ? JSON.parse(text, keepLargeIntegers)
      : JSON.parse(text);
  } catch (e) {
    throw new OtlpDecodeError(`the body is not valid JSON: ${describeError(e)}`);
  }
  const request = object(document, "the ExportTraceServiceRequest");
  if (request === undefined) {
    throw new OtlpDecodeError("the body must be a JSON object (an ExportTraceServiceRequest)");
  }
  return list(field(request, "resourceSpans"), "resourceSpans").map(resourceSpans);
}

/**
 * JSON.parse rounds integers beyond 2^53; nanosecond times sent as JSON numbers would lose their
 * last digits. The reviver sees the source text (Node 21+) and keeps such integers exact. It makes
 * parsing several times slower, so it runs only when the text may hold such a number: one of 16 or
 * more digits right after `:`, `[` or `,` (a string can match too, which only costs time).
 */
const LONG_INTEGER_LITERAL = /[:[,]\s*-?\d{16}/;

function keepLargeIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    const source = context?.source;
    if (source !== undefined && SIGNED.test(source)) return BigInt(source);
  }
  return value;
}

function resourceSpans(value: unknown): WireResourceSpans {
  const rs = required(value, "a ResourceSpans");
  const resource = object(field(rs, "resource"), "ResourceSpans.resource");
  const scopes = list(field(rs, "scopeSpans"), "ResourceSpans.scopeSpans");
  return {
    resourceAttributes: keyValues(resource && field(resource, "attributes"), "Resource.attributes"),
    spans: scopes.flatMap((scope) =>
      list(field(required(scope, "a ScopeSpans"), "spans"), "ScopeSpans.spans").map(span),
    ),
  };
}

function span(value: unknown): WireSpan {
  const s = required(value, "a Span");
  const status = object(field(s, "status"), "Span.status");
  return {
    traceId: id(field(s, "traceId"), "Span.traceId"),
    spanId: id(field(s, "spanId"), "Span.spanId"),
    parentSpanId: id(field(s, "parentSpanId"), "Span.parentSpanId"),
    name: text(field(s, "name"), "Span.name"),
    startTimeUnixNano: uint64(field(s, "startTimeUnixNano"), "Span.startTimeUnixNano"),
    endTimeUnixNano: uint64(field(s, "endTimeUnixNano"), "Span.endTimeUnixNano"),
    statusCode: status ? enumeration(field(status, "code"), STATUS_CODES, "Status.code") : 0,
    statusMessage: status ? text(field(status, "message"), "Status.message") : "",
    attributes: keyValues(field(s, "attributes"), "Span.attributes"),
    events: list(field(s, "events"), "Span.events").map(event),
  };
}

function event(value: unknown): WireEvent {
  const e = required(value, "a Span.Event");
  return {
    name: text(field(e, "name"), "Event.name"),
    timeUnixNano: uint64(field(e, "timeUnixNano"), "Event.timeUnixNano"),
    attributes: keyValues(field(e, "attributes"), "Event.attributes"),
  };
}

function keyValues(value: unknown, what: string, depth = 0): KeyValue[] {
  return list(value, what).map((item) => {
    const kv = required(item, `a KeyValue in ${what}`);
    return {
      key: text(field(kv, "key"), "KeyValue.key"),
      value: anyValue(field(kv, "value"), depth),
      keyStrindex: 0,
    };
  });
}

function anyValue(value: unknown, depth: number): AnyValue {
  const v = object(value, "AnyValue");
  if (v === undefined) return { value: undefined };
  if (depth >= MAX_VALUE_NESTING) {
    throw new OtlpDecodeError(`an attribute value nests deeper than ${MAX_VALUE_NESTING} levels`);
  }
  let x: unknown;
  if ((x = field(v, "stringValue")) !== undefined) {
    return { value: { $case: "stringValue", value: text(x, "AnyValue.stringValue") } };
  }
  if ((x = field(v, "boolValue")) !== undefined) {
    return { value: { $case: "boolValue", value: boolean(x, "AnyValue.boolValue") } };
  }
  if ((x = field(v, "intValue")) !== undefined) {
    return { value: { $case: "intValue", value: int64(x, "AnyValue.intValue") } };
  }
  if ((x = field(v, "doubleValue")) !== undefined) {
    return { value: { $case: "doubleValue", value: double(x, "AnyValue.doubleValue") } };
  }
  if ((x = field(v, "arrayValue")) !== undefined) {
    const array = object(x, "AnyValue.arrayValue");
    const values = list(array && field(array, "values"), "ArrayValue.values");
    return {
      value: { $case: "arrayValue", value: { values: values.map((e) => anyValue(e, depth + 1)) } },
    };
  }
  if ((x = field(v, "kvlistValue")) !== undefined) {
    const kvlist = object(x, "AnyValue.kvlistValue");
    const values = keyValues(kvlist && field(kvlist, "values"), "KeyValueList.values", depth + 1);
    return { value: { $case: "kvlistValue", value: { values } } };
  }
  if ((x = field(v, "bytesValue")) !== undefined) {
    // Buffer's base64 decoder takes the standard and the URL-safe alphabet, as protobuf JSON does.
    return {
      value: { $case: "bytesValue", value: Buffer.from(text(x, "AnyValue.bytesValue"), "base64") },
    };
  }
  return { value: undefined };
}

const snakeNames = new Map<string, string>();

/** A field by its JSON name or its proto name; null counts as absent, as in protobuf JSON. */
function field(o: JsonObject, camel: string): unknown {
  const value = o[camel];
  if (value !== undefined && value !== null) return value;
  let snake = snakeNames.get(camel);
  if (snake === undefined) {
    snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeNames.set(camel, snake);
  }
  return snake === camel ? undefined : (o[snake] ?? undefined);
}

function object(value: unknown, what: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "object" && !Array.isArray(value)) return value as JsonObject;
  throw new OtlpDecodeError(`${what} must be a JSON object, got ${typeName(value)}`);
}

function required(value: unknown, what: string): JsonObject {
  const o = object(value, what);
  if (o === undefined) throw new OtlpDecodeError(`${what} must be a JSON object, got null`);
  return o;
}

function list(value: unknown, what: string): readonly unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  throw new OtlpDecodeError(`${what} must be a JSON array, got ${typeName(value)}`);
}

function text(value: unknown, what: string): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  throw new OtlpDecodeError(`${what} must be a string, got ${typeName(value)}`);
}

function boolean(value: unknown, what: string): boolean {
  if (typeof value === "boolean") return value;
  throw new OtlpDecodeError(`${what} must be true or false, got ${typeName(value)}`);
}

/** Trace and span ids are hex in OTLP/JSON (not base64 as protobuf JSON would have them). */
function id(value: unknown, what: string): string {
  return text(value, what).toLowerCase();
}

function uint64(value: unknown, what: string): bigint {
  if (value === undefined) return 0n;
  const n = integer(value, UNSIGNED);
  if (n === undefined || n < 0n || n > UINT64_MAX) {
    throw new OtlpDecodeError(`${what} must be an unsigned 64-bit integer, got ${shown(value)}`);
  }
  return n;
}

function int64(value: unknown, what: string): bigint {
  const n = integer(value, SIGNED);
  if (n === undefined || n < INT64_MIN || n > INT64_MAX) {
    throw new OtlpDecodeError(`${what} must be a 64-bit integer, got ${shown(value)}`);
  }
  return n;
}

function integer(value: unknown, digits: RegExp): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value === "string" && digits.test(value)) return BigInt(value);
  return undefined;
}

/** Numbers, and strings as protobuf JSON allows them ("NaN", "Infinity", "-Infinity", "1.5"). */
function double(value: unknown, what: string): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "string") {
    if (value === "NaN") return NaN;
    const n = value.trim() === "" ? NaN : Number(value);
    if (!Number.isNaN(n)) return n;
  }
  throw new OtlpDecodeError(`${what} must be a number, got ${shown(value)}`);
}

/** An enum as its number or its name; an unknown name reads as the default (0). */
function enumeration(value: unknown, names: readonly string[], what: string): number {
  if (value === undefined) return 0;
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string") return Math.max(names.indexOf(value), 0);
  throw new OtlpDecodeError(`${what} must be an enum number or name, got ${shown(value)}`);
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return typeName(value);
}
