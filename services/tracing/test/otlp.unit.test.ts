import { describe, expect, it } from "vitest";
import { SpanKind, SpanStatusCode, context, trace, type Attributes } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
} from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { Span } from "@argus/proto/otlp/trace/v1/trace";
import type { DecodedExport, SpanRecord } from "../src/spans/spanRecord.ts";
import {
  MAX_ATTRIBUTES_PER_SPAN,
  MAX_ATTRIBUTE_STRING_LENGTH,
  MAX_EVENTS_PER_SPAN,
  MAX_SPANS_PER_REQUEST,
  OtlpDecodeError,
  decodeExport,
  type OtlpEncoding,
} from "../src/otlp/decode.ts";
import { encodeExportResponse, encodeStatus } from "../src/otlp/response.ts";

const encodings: OtlpEncoding[] = ["protobuf", "json"];
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";
const PARENT = "00f067aa0ba902b7";

// --- payloads from the OpenTelemetry JS SDK --------------------------------------------------

/** Spans recorded by a real SDK tracer, one provider (so one OTLP resource) per call. */
async function recordSpans(
  resource: Attributes,
  record: (tracer: ReturnType<TracerProvider["getTracer"]>) => void,
): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  record(provider.getTracer("argus-test", "1.0.0"));
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

function serialize(spans: ReadableSpan[], encoding: OtlpEncoding): Uint8Array {
  const serializer = encoding === "protobuf" ? ProtobufTraceSerializer : JsonTraceSerializer;
  const body = serializer.serializeRequest(spans);
  if (body === undefined) throw new Error("the SDK serializer returned nothing");
  return body;
}

async function sdkExport(): Promise<ReadableSpan[]> {
  const llm = await recordSpans(
    {
      "openinference.project.name": "proj-a",
      "arize.project.name": "ignored",
      "service.name": "svc",
    },
    (tracer) => {
      const root = tracer.startSpan("root", {
        kind: SpanKind.SERVER,
        startTime: [1_700_000_000, 5],
        attributes: ROOT_ATTRIBUTES,
      });
      const child = tracer.startSpan(
        "child",
        { startTime: [1_700_000_000, 500], attributes: { "openinference.span.kind": "LLM" } },
        trace.setSpan(context.active(), root),
      );
      child.addEvent(
        "exception",
        { "exception.message": "boom", attempt: 2 },
        [1_700_000_000, 700],
      );
      child.setStatus({ code: SpanStatusCode.ERROR, message: "it failed" });
      child.end([1_700_000_000, 900]);
      root.setStatus({ code: SpanStatusCode.OK });
      root.end([1_700_000_001, 0]);
    },
  );
  const arize = await recordSpans({ "arize.project.name": "proj-b" }, (tracer) => {
    tracer
      .startSpan("odd kind", {
        startTime: [1_700_000_002, 0],
        attributes: { "openinference.span.kind": "Retriever-ish" },
      })
      .end([1_700_000_003, 0]);
  });
  const nameless = await recordSpans({}, (tracer) => {
    tracer.startSpan("no kind", { startTime: [1_700_000_004, 0] }).end([1_700_000_004, 10]);
  });
  return [...llm, ...arize, ...nameless];
}

function expectedRecord(span: ReadableSpan, fields: Partial<SpanRecord>): SpanRecord {
  const nanos = ([s, ns]: [number, number]) => BigInt(s) * 1_000_000_000n + BigInt(ns);
  return {
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentId: span.parentSpanContext?.spanId ?? "",
    name: span.name,
    kind: "UNKNOWN",
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    statusCode: "UNSET",
    statusMessage: "",
    attributes: {},
    events: [],
    ...fields,
  };
}

/** A root span's attributes of every kind of value OTLP carries: sent, and stored as they are. */
const ROOT_ATTRIBUTES = {
  "openinference.span.kind": "chain",
  "input.value": "hello",
  "llm.token_count.total": 42,
  "llm.invocation_parameters.temperature": 0.5,
  "llm.streaming": false,
  "tag.tags": ["a", "b"],
  "embedding.vector": [1.5, 2.5],
  flags: [true, false],
};

describe("decodeExport with payloads of the OpenTelemetry JS SDK", () => {
  it.each(encodings)("%s: every field of every span, grouped by resource project", async (enc) => {
    const spans = await sdkExport();
    const [child, root, odd, nameless] = spans;
    if (!child || !root || !odd || !nameless) throw new Error("expected four spans");
    expect(root.name).toBe("root");

    const decoded = decodeExport(serialize(spans, enc), enc);

    expect(decoded.rejectedSpans).toBe(0);
    expect(decoded.errorMessage).toBe("");
    expect(decoded.batches.map((b) => b.projectName)).toEqual(["proj-a", "proj-b", ""]);
    const [a, b, c] = decoded.batches;
    expect(a?.spans).toEqual([
      expectedRecord(child, {
        parentId: root.spanContext().spanId,
        kind: "LLM",
        startTimeUnixNano: 1_700_000_000_000_000_500n,
        endTimeUnixNano: 1_700_000_000_000_000_900n,
        statusCode: "ERROR",
        statusMessage: "it failed",
        attributes: { "openinference.span.kind": "LLM" },
        events: [
          {
            name: "exception",
            timeUnixNano: 1_700_000_000_000_000_700n,
            attributes: { "exception.message": "boom", attempt: 2 },
          },
        ],
      }),
      expectedRecord(root, {
        kind: "CHAIN",
        startTimeUnixNano: 1_700_000_000_000_000_005n,
        endTimeUnixNano: 1_700_000_001_000_000_000n,
        statusCode: "OK",
        attributes: ROOT_ATTRIBUTES,
      }),
    ]);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(a?.spans[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a?.spans[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(b?.spans).toEqual([
      expectedRecord(odd, {
        kind: "UNKNOWN",
        attributes: { "openinference.span.kind": "Retriever-ish" },
      }),
    ]);
    expect(c?.spans).toEqual([expectedRecord(nameless, {})]);
  });

  it("both encodings of one export decode to the same spans", async () => {
    const spans = await sdkExport();
    expect(decodeExport(serialize(spans, "json"), "json")).toEqual(
      decodeExport(serialize(spans, "protobuf"), "protobuf"),
    );
  });
});

// --- hand-made OTLP/JSON ---------------------------------------------------------------------

type Json = Record<string, unknown>;

function jsonBody(spans: Json[], resourceAttributes: Json[] = []): Uint8Array {
  return utf8.encode(
    JSON.stringify({
      resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ spans }] }],
    }),
  );
}

function jsonSpan(fields: Json = {}): Json {
  return {
    traceId: TRACE,
    spanId: SPAN,
    name: "s",
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000000000000100",
    ...fields,
  };
}

const str = (key: string, value: string): Json => ({ key, value: { stringValue: value } });

function onlySpan(decoded: DecodedExport): SpanRecord {
  expect(decoded.batches).toHaveLength(1);
  expect(decoded.batches[0]?.spans).toHaveLength(1);
  const span = decoded.batches[0]?.spans[0];
  if (span === undefined) throw new Error("no span");
  return span;
}

function decodeJson(text: string): DecodedExport {
  return decodeExport(utf8.encode(text), "json");
}

function decodeError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(OtlpDecodeError);
    return (e as Error).message;
  }
  throw new Error("expected an OtlpDecodeError");
}

describe("decodeExport of OTLP/JSON", () => {
  it("maps every AnyValue type; ints beyond 2^53 and non-finite doubles become text", () => {
    const span = onlySpan(
      decodeExport(
        jsonBody([
          jsonSpan({
            attributes: [
              str("s", "text"),
              { key: "t", value: { boolValue: true } },
              { key: "i", value: { intValue: "-12" } },
              { key: "n", value: { intValue: 7 } },
              { key: "big", value: { intValue: "9007199254740993" } },
              { key: "d", value: { doubleValue: 2.25 } },
              { key: "nan", value: { doubleValue: "NaN" } },
              { key: "inf", value: { doubleValue: "Infinity" } },
              { key: "ninf", value: { doubleValue: "-Infinity" } },
              { key: "bytes", value: { bytesValue: "AAEC/w==" } },
              { key: "empty", value: {} },
              { key: "missing" },
              {
                key: "list",
                value: {
                  arrayValue: {
                    values: [
                      { stringValue: "x" },
                      { intValue: "1" },
                      { arrayValue: { values: [] } },
                    ],
                  },
                },
              },
              {
                key: "map",
                value: {
                  kvlistValue: {
                    values: [str("a", "1"), { key: "b", value: { kvlistValue: { values: [] } } }],
                  },
                },
              },
            ],
          }),
        ]),
        "json",
      ),
    );
    expect(span.attributes).toEqual({
      s: "text",
      t: true,
      i: -12,
      n: 7,
      big: "9007199254740993",
      d: 2.25,
      nan: "NaN",
      inf: "Infinity",
      ninf: "-Infinity",
      bytes: "AAEC/w==",
      empty: null,
      missing: null,
      list: ["x", 1, []],
      map: { a: "1", b: {} },
    });
  });

  it("accepts enum names, ignores the OTLP span kind and unknown fields", () => {
    const decoded = decodeExport(
      jsonBody([
        jsonSpan({
          kind: "SPAN_KIND_SERVER",
          status: { code: "STATUS_CODE_ERROR", message: "bad" },
          somethingNew: { nested: [1, 2] },
          attributes: [str("openinference.span.kind", "tool")],
        }),
        jsonSpan({ spanId: "1111111111111111", status: { code: "STATUS_CODE_OK" } }),
        jsonSpan({ spanId: "2222222222222222", status: { code: 1 } }),
        jsonSpan({ spanId: "3333333333333333", status: { code: 2 } }),
        jsonSpan({ spanId: "4444444444444444", status: { code: 9 } }),
        jsonSpan({ spanId: "5555555555555555", status: { code: "STATUS_CODE_NEW" } }),
      ]),
      "json",
    );
    const spans = decoded.batches[0]?.spans ?? [];
    expect(spans.map((s) => [s.kind, s.statusCode, s.statusMessage])).toEqual([
      ["TOOL", "ERROR", "bad"],
      ["UNKNOWN", "OK", ""],
      ["UNKNOWN", "OK", ""],
      ["UNKNOWN", "ERROR", ""],
      ["UNKNOWN", "UNSET", ""],
      ["UNKNOWN", "UNSET", ""],
    ]);
  });

  it("accepts the snake_case proto field names", () => {
    const body = JSON.stringify({
      resource_spans: [
        {
          resource: {
            attributes: [{ key: "openinference.project.name", value: { string_value: "p" } }],
          },
          scope_spans: [
            {
              spans: [
                {
                  trace_id: TRACE,
                  span_id: SPAN,
                  parent_span_id: PARENT,
                  name: "snake",
                  start_time_unix_nano: "10",
                  end_time_unix_nano: "20",
                  status: { code: "STATUS_CODE_ERROR", message: "m" },
                  attributes: [
                    { key: "i", value: { int_value: "3" } },
                    { key: "b", value: { bool_value: true } },
                    { key: "d", value: { double_value: 1.5 } },
                    { key: "x", value: { bytes_value: "AQ==" } },
                    { key: "a", value: { array_value: { values: [{ string_value: "v" }] } } },
                    { key: "m", value: { kvlist_value: { values: [str("k", "v")] } } },
                  ],
                  events: [{ name: "e", time_unix_nano: "15", attributes: [str("k", "v")] }],
                },
              ],
            },
          ],
        },
      ],
    });
    const decoded = decodeJson(body);
    expect(decoded.batches[0]?.projectName).toBe("p");
    expect(onlySpan(decoded)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      parentId: PARENT,
      name: "snake",
      kind: "UNKNOWN",
      startTimeUnixNano: 10n,
      endTimeUnixNano: 20n,
      statusCode: "ERROR",
      statusMessage: "m",
      attributes: { i: 3, b: true, d: 1.5, x: "AQ==", a: ["v"], m: { k: "v" } },
      events: [{ name: "e", timeUnixNano: 15n, attributes: { k: "v" } }],
    });
  });

  it("keeps 64-bit times exact when sent as JSON numbers, and reads uppercase hex ids", () => {
    const span = onlySpan(
      decodeJson(
        `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${TRACE.toUpperCase()}",` +
          `"spanId":"${SPAN}","startTimeUnixNano":1700000000000000123,` +
          `"endTimeUnixNano":1700000000000000999,"attributes":[` +
          `{"key":"big","value":{"intValue":9007199254740993}}]}]}]}]}`,
      ),
    );
    expect(span.traceId).toBe(TRACE);
    expect(span.startTimeUnixNano).toBe(1_700_000_000_000_000_123n);
    expect(span.endTimeUnixNano).toBe(1_700_000_000_000_000_999n);
    expect(span.attributes).toEqual({ big: "9007199254740993" });
  });

  it("an all-zero or absent parent is a root; an end before the start becomes the start", () => {
    const decoded = decodeExport(
      jsonBody([
        jsonSpan({ parentSpanId: "0000000000000000" }),
        jsonSpan({ spanId: "1111111111111111", parentSpanId: "" }),
        jsonSpan({
          spanId: "2222222222222222",
          parentSpanId: SPAN,
          startTimeUnixNano: "500",
          endTimeUnixNano: "100",
        }),
        jsonSpan({ spanId: "3333333333333333", endTimeUnixNano: undefined }),
      ]),
      "json",
    );
    const spans = decoded.batches[0]?.spans ?? [];
    expect(spans.map((s) => [s.parentId, s.startTimeUnixNano, s.endTimeUnixNano])).toEqual([
      ["", 1_700_000_000_000_000_000n, 1_700_000_000_000_000_100n],
      ["", 1_700_000_000_000_000_000n, 1_700_000_000_000_000_100n],
      [SPAN, 500n, 500n],
      ["", 1_700_000_000_000_000_000n, 1_700_000_000_000_000_000n],
    ]);
  });

  it("rejects unstorable spans, counts them, names the first reason and keeps the rest", () => {
    const decoded = decodeExport(
      utf8.encode(
        JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [str("openinference.project.name", "kept")] },
              scopeSpans: [
                { spans: [jsonSpan({ name: "ok-1" }), jsonSpan({ spanId: "0000000000000000" })] },
                { spans: [jsonSpan({ traceId: "abcd" }), jsonSpan({ name: "ok-2" })] },
              ],
            },
            {
              scopeSpans: [
                {
                  spans: [
                    jsonSpan({ traceId: "0".repeat(32) }),
                    jsonSpan({ traceId: "z".repeat(32) }),
                    jsonSpan({ traceId: undefined }),
                    jsonSpan({ spanId: "b7ad6b716920333" }),
                    jsonSpan({ parentSpanId: "00f067aa" }),
                    jsonSpan({ startTimeUnixNano: "0" }),
                    jsonSpan({ startTimeUnixNano: undefined }),
                    jsonSpan({ startTimeUnixNano: "9223372036854775808" }),
                  ],
                },
              ],
            },
          ],
        }),
      ),
      "json",
    );
    expect(decoded.rejectedSpans).toBe(10);
    expect(decoded.errorMessage).toBe(
      "10 spans rejected: span 1 of resource 0 has no valid span_id (8 bytes, not all zero)",
    );
    // The second resource has no storable span left, so it yields no batch.
    expect(decoded.batches).toHaveLength(1);
    expect(decoded.batches[0]?.projectName).toBe("kept");
    expect(decoded.batches[0]?.spans.map((s) => s.name)).toEqual(["ok-1", "ok-2"]);
  });

  it.each([
    ["a bad trace_id", { traceId: "abcd" }, "has no valid trace_id (16 bytes, not all zero)"],
    [
      "a bad parent",
      { parentSpanId: "00" },
      "has an invalid parent_span_id (must be empty or 8 bytes)",
    ],
    ["no start", { startTimeUnixNano: "0" }, "has no start_time_unix_nano"],
  ])("names %s in the message of a single rejection", (_what, fields, reason) => {
    const decoded = decodeExport(jsonBody([jsonSpan(fields)]), "json");
    expect(decoded).toEqual({
      batches: [],
      rejectedSpans: 1,
      errorMessage: `1 span rejected: span 0 of resource 0 ${reason}`,
    });
  });

  it("project name: openinference first, then arize (an empty value does not count), else empty", () => {
    const project = (attributes: Json[]) =>
      decodeExport(jsonBody([jsonSpan()], attributes), "json").batches[0]?.projectName;
    expect(project([str("arize.project.name", "b"), str("openinference.project.name", "a")])).toBe(
      "a",
    );
    expect(project([str("openinference.project.name", ""), str("arize.project.name", "b")])).toBe(
      "b",
    );
    expect(project([{ key: "openinference.project.name", value: { intValue: "1" } }])).toBe("");
    expect(project([str("service.name", "svc")])).toBe("");
  });

  it("span kinds match case-insensitively; anything else is UNKNOWN", () => {
    const kind = (value: Json) =>
      onlySpan(
        decodeExport(
          jsonBody([jsonSpan({ attributes: [{ key: "openinference.span.kind", value }] })]),
          "json",
        ),
      ).kind;
    expect(kind({ stringValue: "Embedding" })).toBe("EMBEDDING");
    expect(kind({ stringValue: "reranker" })).toBe("RERANKER");
    expect(kind({ stringValue: "GUARDRAIL" })).toBe("GUARDRAIL");
    expect(kind({ stringValue: "workflow" })).toBe("UNKNOWN");
    expect(kind({ intValue: "1" })).toBe("UNKNOWN");
  });

  it("replaces U+0000 and lone surrogates with U+FFFD in every string", () => {
    const decoded = decodeJson(
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [str("openinference.project.name", "p\u0000")] },
            scopeSpans: [
              {
                spans: [
                  jsonSpan({
                    name: "a\u0000b",
                    status: { code: 2, message: "m\u0000" },
                    attributes: [
                      str("k\u0000", "v\u0000"),
                      str("lone", "x\ud800y"),
                      str("pair", "\ud83d\ude00"),
                      {
                        key: "nested",
                        value: { arrayValue: { values: [{ stringValue: "\u0000" }] } },
                      },
                      { key: "obj", value: { kvlistValue: { values: [str("\udc00", "v")] } } },
                    ],
                    events: [
                      { name: "e\u0000", timeUnixNano: "1", attributes: [str("x", "\u0000")] },
                    ],
                  }),
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(decoded.batches[0]?.projectName).toBe("p\ufffd");
    const span = onlySpan(decoded);
    expect(span.name).toBe("a\ufffdb");
    expect(span.statusMessage).toBe("m\ufffd");
    expect(span.attributes).toEqual({
      "k\ufffd": "v\ufffd",
      lone: "x\ufffdy",
      pair: "\ud83d\ude00",
      nested: ["\ufffd"],
      obj: { "\ufffd": "v" },
    });
    expect(span.events).toEqual([
      { name: "e\ufffd", timeUnixNano: 1n, attributes: { x: "\ufffd" } },
    ]);
  });

  it("a repeated key keeps its last value; __proto__ is an ordinary key", () => {
    const span = onlySpan(
      decodeExport(
        jsonBody([
          jsonSpan({ attributes: [str("k", "first"), str("__proto__", "p"), str("k", "last")] }),
        ]),
        "json",
      ),
    );
    expect(Object.keys(span.attributes)).toEqual(["k", "__proto__"]);
    expect(span.attributes["k"]).toBe("last");
    expect(Object.getOwnPropertyDescriptor(span.attributes, "__proto__")?.value).toBe("p");
    expect(JSON.parse(JSON.stringify(span.attributes))).toEqual(
      JSON.parse('{"k":"last","__proto__":"p"}'),
    );
  });

  it("keeps the first attributes and events up to the limits and truncates long strings", () => {
    const many = Array.from({ length: MAX_ATTRIBUTES_PER_SPAN + 5 }, (_, i) => str(`a${i}`, "v"));
    const events = Array.from({ length: MAX_EVENTS_PER_SPAN + 3 }, (_, i) => ({
      name: `e${i}`,
      timeUnixNano: "1",
      attributes: many,
    }));
    const long = "x".repeat(MAX_ATTRIBUTE_STRING_LENGTH - 1) + "\ud83d\ude00" + "tail";
    const span = onlySpan(
      decodeExport(
        jsonBody([
          jsonSpan({ attributes: [...many, str("a0", "again"), str("long", long)], events }),
        ]),
        "json",
      ),
    );
    const keys = Object.keys(span.attributes);
    expect(keys).toHaveLength(MAX_ATTRIBUTES_PER_SPAN);
    expect(keys.at(-1)).toBe(`a${MAX_ATTRIBUTES_PER_SPAN - 1}`);
    // A kept key still takes a later value; a new key past the limit is dropped.
    expect(span.attributes["a0"]).toBe("again");
    expect(span.attributes["long"]).toBeUndefined();
    expect(span.events).toHaveLength(MAX_EVENTS_PER_SPAN);
    expect(span.events.at(-1)?.name).toBe(`e${MAX_EVENTS_PER_SPAN - 1}`);
    expect(Object.keys(span.events[0]?.attributes ?? {})).toHaveLength(MAX_ATTRIBUTES_PER_SPAN);

    const cut = onlySpan(
      decodeExport(jsonBody([jsonSpan({ attributes: [str("long", long)] })]), "json"),
    );
    // The cut falls inside a surrogate pair, so the whole pair goes.
    expect(cut.attributes["long"]).toBe("x".repeat(MAX_ATTRIBUTE_STRING_LENGTH - 1));
    const exact = "y".repeat(MAX_ATTRIBUTE_STRING_LENGTH + 10);
    const cut2 = onlySpan(
      decodeExport(jsonBody([jsonSpan({ attributes: [str("s", exact)] })]), "json"),
    );
    expect(cut2.attributes["s"]).toHaveLength(MAX_ATTRIBUTE_STRING_LENGTH);
  });

  it("refuses more than MAX_SPANS_PER_REQUEST spans and accepts exactly that many", () => {
    const body = (n: number) =>
      `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(n).fill("{}").join(",")}]}]}]}`;
    expect(decodeError(() => decodeJson(body(MAX_SPANS_PER_REQUEST + 1)))).toBe(
      `the request holds ${MAX_SPANS_PER_REQUEST + 1} spans, more than the ${MAX_SPANS_PER_REQUEST} accepted in one export; send smaller batches`,
    );
    expect(decodeJson(body(MAX_SPANS_PER_REQUEST)).rejectedSpans).toBe(MAX_SPANS_PER_REQUEST);
  });

  it.each([
    ["not JSON", "{", /^the body is not valid JSON: /],
    ["a JSON array", "[]", /must be a JSON object/],
    [
      "resourceSpans not an array",
      '{"resourceSpans":{}}',
      /^resourceSpans must be a JSON array, got an object$/,
    ],
    [
      "a span that is a string",
      '{"resourceSpans":[{"scopeSpans":[{"spans":["x"]}]}]}',
      /a Span must be a JSON object/,
    ],
    [
      "a time that is not an integer",
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":"soon"}]}]}]}`,
      /^Span.startTimeUnixNano must be an unsigned 64-bit integer, got "soon"$/,
    ],
    [
      "a negative time",
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"startTimeUnixNano":-1}]}]}]}`,
      /unsigned 64-bit/,
    ],
    [
      "a numeric name",
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":5}]}]}]}`,
      /^Span.name must be a string, got a number$/,
    ],
    [
      "a boolValue string",
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":{"boolValue":"yes"}}]}]}]}]}`,
      /AnyValue.boolValue must be true or false/,
    ],
  ])("refuses %s with OtlpDecodeError", (_what, body, message) => {
    expect(decodeError(() => decodeJson(body))).toMatch(message);
  });

  it("refuses attribute values nested deeper than 100 levels", () => {
    let value: Json = { stringValue: "leaf" };
    for (let i = 0; i < 101; i++) value = { arrayValue: { values: [value] } };
    const body = jsonBody([jsonSpan({ attributes: [{ key: "deep", value }] })]);
    expect(decodeError(() => decodeExport(body, "json"))).toMatch(/nests deeper than 100 levels/);
  });

  it("an empty object is an empty export", () => {
    expect(decodeJson("{}")).toEqual({ batches: [], rejectedSpans: 0, errorMessage: "" });
  });
});

// --- hand-made OTLP/protobuf -----------------------------------------------------------------

function protoSpan(fields: Partial<Span> = {}): Span {
  return {
    traceId: Buffer.from(TRACE, "hex"),
    spanId: Buffer.from(SPAN, "hex"),
    traceState: "",
    parentSpanId: Buffer.alloc(0),
    flags: 0,
    name: "p",
    kind: 1,
    startTimeUnixNano: 10n,
    endTimeUnixNano: 20n,
    attributes: [],
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: undefined,
    ...fields,
  };
}

function protoBody(spans: Span[]): Uint8Array {
  return ExportTraceServiceRequest.encode({
    resourceSpans: [
      {
        resource: undefined,
        scopeSpans: [{ scope: undefined, spans, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  }).finish();
}

describe("decodeExport of OTLP/protobuf", () => {
  it.each([
    ["a truncated length", Uint8Array.of(0x0a, 0x05, 0x01)],
    ["an unfinished varint", Uint8Array.of(0x0a, 0xff)],
    ["an invalid wire type", Uint8Array.of(0x0f, 0x00)],
  ])("refuses %s with OtlpDecodeError", (_what, bytes) => {
    expect(decodeError(() => decodeExport(bytes, "protobuf"))).toMatch(
      /^the body is not a valid OTLP ExportTraceServiceRequest \(protobuf\): ./,
    );
  });

  it("refuses a truncated SDK export", async () => {
    const body = serialize(await sdkExport(), "protobuf");
    expect(() => decodeExport(body.subarray(0, body.length - 7), "protobuf")).toThrow(
      OtlpDecodeError,
    );
  });

  it("an empty body is an empty export", () => {
    expect(decodeExport(new Uint8Array(0), "protobuf")).toEqual({
      batches: [],
      rejectedSpans: 0,
      errorMessage: "",
    });
  });

  it("rejects spans with ids of the wrong length or all zeros; an all-zero parent is a root", () => {
    const decoded = decodeExport(
      protoBody([
        protoSpan({ name: "root", parentSpanId: Buffer.alloc(8) }),
        protoSpan({ name: "short trace", traceId: Buffer.from("0af76519", "hex") }),
        protoSpan({ name: "zero trace", traceId: Buffer.alloc(16) }),
        protoSpan({ name: "no span id", spanId: Buffer.alloc(0) }),
        protoSpan({ name: "long parent", parentSpanId: Buffer.alloc(9, 1) }),
        protoSpan({ name: "child", parentSpanId: Buffer.from(PARENT, "hex") }),
      ]),
      "protobuf",
    );
    expect(decoded.rejectedSpans).toBe(4);
    expect(decoded.errorMessage).toBe(
      "4 spans rejected: span 1 of resource 0 has no valid trace_id (16 bytes, not all zero)",
    );
    expect(decoded.batches[0]?.spans.map((s) => [s.name, s.traceId, s.spanId, s.parentId])).toEqual(
      [
        ["root", TRACE, SPAN, ""],
        ["child", TRACE, SPAN, PARENT],
      ],
    );
  });

  it("maps int64 and double edge values and bytes", () => {
    const span = onlySpan(
      decodeExport(
        protoBody([
          protoSpan({
            attributes: [
              {
                key: "max",
                value: { value: { $case: "intValue", value: 2n ** 63n - 1n } },
                keyStrindex: 0,
              },
              {
                key: "safe",
                value: { value: { $case: "intValue", value: -(2n ** 53n - 1n) } },
                keyStrindex: 0,
              },
              {
                key: "nan",
                value: { value: { $case: "doubleValue", value: NaN } },
                keyStrindex: 0,
              },
              {
                key: "ninf",
                value: { value: { $case: "doubleValue", value: -Infinity } },
                keyStrindex: 0,
              },
              {
                key: "raw",
                value: { value: { $case: "bytesValue", value: Buffer.from([0, 1, 254, 255]) } },
                keyStrindex: 0,
              },
              { key: "none", value: undefined, keyStrindex: 0 },
            ],
          }),
        ]),
        "protobuf",
      ),
    );
    expect(span.attributes).toEqual({
      max: "9223372036854775807",
      safe: -(2 ** 53 - 1),
      nan: "NaN",
      ninf: "-Infinity",
      raw: "AAH+/w==",
      none: null,
    });
  });

  it("refuses more than MAX_SPANS_PER_REQUEST spans", () => {
    const spans = Array.from({ length: MAX_SPANS_PER_REQUEST + 1 }, () => protoSpan());
    expect(decodeError(() => decodeExport(protoBody(spans), "protobuf"))).toMatch(
      /^the request holds 100001 spans, more than the 100000 accepted/,
    );
  });
});

// --- responses -------------------------------------------------------------------------------

/** Reads google.rpc.Status { int32 code = 1; string message = 2 } by hand. */
function readStatus(bytes: Uint8Array): { code: number; message: string } {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = bytes[pos++];
      if (b === undefined) throw new Error("truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
  };
  const status = { code: 0, message: "" };
  while (pos < bytes.length) {
    const tag = Number(varint());
    if (tag === 0x08) status.code = Number(BigInt.asIntN(32, varint()));
    else if (tag === 0x12) {
      const length = Number(varint());
      status.message = fromUtf8.decode(bytes.subarray(pos, pos + length));
      pos += length;
    } else throw new Error(`unexpected tag ${tag}`);
  }
  return status;
}

describe("encodeExportResponse", () => {
  it("protobuf: empty when everything was accepted, partial_success otherwise", () => {
    const ok = encodeExportResponse({ rejectedSpans: 0, errorMessage: "" }, "protobuf");
    expect(ok).toHaveLength(0);
    expect(ExportTraceServiceResponse.decode(ok)).toEqual({ partialSuccess: undefined });

    const partial = encodeExportResponse(
      { rejectedSpans: 3, errorMessage: "3 spans rejected: …" },
      "protobuf",
    );
    expect(ExportTraceServiceResponse.decode(partial)).toEqual({
      partialSuccess: { rejectedSpans: 3n, errorMessage: "3 spans rejected: …" },
    });

    const warning = encodeExportResponse(
      { rejectedSpans: 0, errorMessage: "slow down" },
      "protobuf",
    );
    expect(ExportTraceServiceResponse.decode(warning)).toEqual({
      partialSuccess: { rejectedSpans: 0n, errorMessage: "slow down" },
    });
  });

  it("json: {} when everything was accepted, int64 as a string otherwise", () => {
    const text = (r: { rejectedSpans: number; errorMessage: string }) =>
      fromUtf8.decode(encodeExportResponse(r, "json"));
    expect(text({ rejectedSpans: 0, errorMessage: "" })).toBe("{}");
    expect(JSON.parse(text({ rejectedSpans: 2, errorMessage: 'bad "ids"' }))).toEqual({
      partialSuccess: { rejectedSpans: "2", errorMessage: 'bad "ids"' },
    });
  });

  it("the SDK reads our JSON response", () => {
    const body = encodeExportResponse({ rejectedSpans: 5, errorMessage: "m" }, "json");
    expect(JsonTraceSerializer.deserializeResponse(body)).toEqual({
      partialSuccess: { rejectedSpans: "5", errorMessage: "m" },
    });
  });
});

describe("encodeStatus", () => {
  it("protobuf: code and message as fields 1 and 2", () => {
    const bytes = encodeStatus(3, "invalid argument: ü", "protobuf");
    expect(Array.from(bytes.subarray(0, 4))).toEqual([0x08, 0x03, 0x12, 20]);
    expect(readStatus(bytes)).toEqual({ code: 3, message: "invalid argument: ü" });
  });

  it("protobuf: defaults are left out; a negative code is a ten-byte varint", () => {
    expect(encodeStatus(0, "", "protobuf")).toHaveLength(0);
    expect(readStatus(encodeStatus(0, "m", "protobuf"))).toEqual({ code: 0, message: "m" });
    const negative = encodeStatus(-2, "", "protobuf");
    expect(negative).toHaveLength(11);
    expect(readStatus(negative)).toEqual({ code: -2, message: "" });
    const long = "x".repeat(300);
    expect(readStatus(encodeStatus(14, long, "protobuf"))).toEqual({ code: 14, message: long });
  });

  it("json: {code, message}", () => {
    expect(JSON.parse(fromUtf8.decode(encodeStatus(8, "too many spans", "json")))).toEqual({
      code: 8,
      message: "too many spans",
    });
  });
});
