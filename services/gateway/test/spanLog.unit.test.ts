import {
  Binary,
  Bool,
  Float64,
  Int64,
  List,
  Field,
  type Table,
  Uint64,
  Utf8,
  type DataType,
} from "apache-arrow";
import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { ExportTraceServiceRequest } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { AnyValue } from "@argus/proto/otlp/common/v1/common";
import { isSpanLog, spanLogExport, spanLogLayout } from "../src/flight/spanLog.ts";
import { table } from "./arrowTables.ts";

const strings = () => new List(new Field("item", new Utf8(), true));
const START = 1_795_960_124_474_430_976n;

/** Two spans as spans.log sends them (read from the SDK's upload of the same frame). */
const logged = (extra: Record<string, [DataType, unknown[]]> = {}) =>
  table({
    "context.span_id": [new Utf8(), ["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"]],
    "context.trace_id": [new Utf8(), ["c".repeat(32), "c".repeat(32)]],
    parent_id: [new Utf8(), [null, "aaaaaaaaaaaaaaaa"]],
    name: [new Utf8(), ["root", "child"]],
    "attributes.openinference.span.kind": [new Utf8(), ["CHAIN", null]],
    span_kind: [new Utf8(), ["LLM", "LLM"]],
    start_time: [new Int64(), [START, START]],
    end_time: [new Int64(), [START + 1_000_000_000n, START - 1n]],
    status_code: [new Utf8(), ["OK", "error"]],
    status_message: [new Utf8(), ["", "bad"]],
    events: [strings(), [['{"name": "ev", "timestamp": 123, "attributes": "{\\"x\\": 1}"}'], []]],
    "attributes.input.value": [new Utf8(), ["in", "in2"]],
    "attributes.llm.token_count.total": [new Int64(), [3n, 4n]],
    "attributes.custom.score": [new Float64(), [0.5, NaN]],
    "attributes.custom.flag": [new Bool(), [true, false]],
    "attributes.metadata": [new Utf8(), ['{"a": 1}', null]],
    "attributes.llm.input_messages": [
      strings(),
      [['{"message.role": "user", "message.content": "hi"}'], []],
    ],
    "attributes.tags": [strings(), [["a", "b"], ["c"]]],
    ...extra,
  });

const refusal = async (fn: () => unknown): Promise<DomainError> => {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error("not refused");
};

/** An AnyValue as the JSON the tracing service stores it as (its values.ts), for comparing. */
function json(v: AnyValue | undefined): unknown {
  const x = v?.value;
  if (!x) return null;
  switch (x.$case) {
    case "intValue":
      return Number(x.value);
    case "arrayValue":
      return x.value.values.map(json);
    case "kvlistValue":
      return Object.fromEntries(x.value.values.map((kv) => [kv.key, json(kv.value)]));
    default:
      return x.value;
  }
}

async function exported(t: Table, maxBytes = 1 << 20) {
  const { payload, spans } = await spanLogExport(
    spanLogLayout(t.schema),
    t.batches,
    "proj",
    maxBytes,
  );
  return { spans, request: ExportTraceServiceRequest.decode(payload) };
}

describe("spans.log: which uploads it is", () => {
  it("update_evaluations sends span ids and eval columns only; log sends spans", () => {
    const evals = table({
      "context.span_id": [new Utf8(), ["a"]],
      "eval.c.label": [new Utf8(), ["x"]],
    });
    expect(isSpanLog(evals.schema)).toBe(false);
    expect(isSpanLog(logged().schema)).toBe(true);
  });
});

describe("spans.log: rows → one OTLP request", () => {
  it("one resource naming the project; each row a span with OpenInference's attributes", async () => {
    const { spans, request } = await exported(logged());
    expect(spans).toBe(2);
    const [resource] = request.resourceSpans;
    expect(request.resourceSpans).toHaveLength(1);
    expect(resource!.resource!.attributes.map((a) => [a.key, json(a.value)])).toEqual([
      ["openinference.project.name", "proj"],
    ]);
    const [root, child] = resource!.scopeSpans[0]!.spans;
    expect(root!.spanId.toString("hex")).toBe("aaaaaaaaaaaaaaaa");
    expect(root!.traceId.toString("hex")).toBe("c".repeat(32));
    expect(root!.parentSpanId.length).toBe(0);
    expect(child!.parentSpanId.toString("hex")).toBe("aaaaaaaaaaaaaaaa");
    expect(root!.name).toBe("root");
    expect(root!.startTimeUnixNano).toBe(START);
    expect(root!.endTimeUnixNano).toBe(START + 1_000_000_000n);
    // Kept as sent: the tracing service's ingestion raises an end before the start to it.
    expect(child!.endTimeUnixNano).toBe(START - 1n);
    expect(root!.status).toEqual({ code: 1, message: "" });
    expect(child!.status).toEqual({ code: 2, message: "bad" });
    const attrs = (i: number) =>
      Object.fromEntries(
        resource!.scopeSpans[0]!.spans[i]!.attributes.map((a) => [a.key, json(a.value)]),
      );
    expect(attrs(0)).toEqual({
      // The attribute wins over the root-level span_kind column; without it, span_kind is it.
      "openinference.span.kind": "CHAIN",
      "input.value": "in",
      "llm.token_count.total": 3,
      "custom.score": 0.5,
      "custom.flag": true,
      // JSON text stays text, as OpenInference sends metadata.
      metadata: '{"a": 1}',
      // A list of JSON objects is flattened under each item's index.
      "llm.input_messages.0.message.role": "user",
      "llm.input_messages.0.message.content": "hi",
      tags: ["a", "b"],
    });
    // NaN (pandas' missing value), nulls and empty lists are no attribute at all.
    expect(attrs(1)).toEqual({
      "input.value": "in2",
      "llm.token_count.total": 4,
      "custom.flag": false,
      tags: ["c"],
      "openinference.span.kind": "LLM",
    });
    expect(root!.events).toHaveLength(1);
    expect(root!.events[0]!.name).toBe("ev");
    expect(root!.events[0]!.timeUnixNano).toBe(123n);
    expect(root!.events[0]!.attributes.map((a) => [a.key, json(a.value)])).toEqual([["x", 1]]);
    expect(child!.events).toEqual([]);
  });

  it("an id that is not hex is sent as no id, for the tracing service to refuse", async () => {
    const t = logged({ "context.span_id": [new Utf8(), ["not-hex!", "bbbbbbbbbbbbbbbb"]] });
    const { request } = await exported(t);
    expect(request.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.spanId.length).toBe(0);
  });

  it("an OTLP request over the limit is 413, at its edge", async () => {
    const { payload } = await spanLogExport(
      spanLogLayout(logged().schema),
      logged().batches,
      "proj",
      1 << 20,
    );
    await expect(
      spanLogExport(spanLogLayout(logged().schema), logged().batches, "proj", payload.length),
    ).resolves.toMatchObject({ spans: 2 });
    const err = await refusal(() =>
      spanLogExport(spanLogLayout(logged().schema), logged().batches, "proj", payload.length - 1),
    );
    expect(err.type).toBe("payload-too-large");
    expect(err.message).toMatch(/log fewer rows per call/);
  });
});

describe("spans.log: refusals before any span is sent", () => {
  const without = (column: string) => {
    const t = logged();
    return t.select(t.schema.fields.map((f) => f.name).filter((n) => n !== column));
  };

  it.each(["context.span_id", "context.trace_id", "name", "start_time"])(
    "no %s column",
    async (column) => {
      const err = await refusal(() => spanLogLayout(without(column).schema));
      expect(err.type).toBe("invalid-request");
      expect(err.message).toBe(`the upload has no "${column}" column, which every span needs`);
    },
  );

  it("an attribute column of an unsupported Arrow type, named with its type", async () => {
    const err = await refusal(() =>
      spanLogLayout(logged({ "attributes.blob": [new Binary(), [null, null]] }).schema),
    );
    expect(err.message).toMatch(/column "attributes\.blob" has Arrow type Binary: it must hold/);
  });

  it("times that are not integer nanoseconds", async () => {
    const err = await refusal(() =>
      spanLogLayout(logged({ start_time: [new Utf8(), ["now", "now"]] }).schema),
    );
    expect(err.message).toMatch(/column "start_time" has Arrow type Utf8: it must hold integer/);
  });

  it("a column that is no span column", async () => {
    const err = await refusal(() =>
      spanLogLayout(logged({ colour: [new Utf8(), ["a", "b"]] }).schema),
    );
    expect(err.message).toMatch(/column "colour" is not a span column/);
  });

  it("a status that is none of OTLP's, naming its row", async () => {
    const err = await refusal(() =>
      exported(logged({ status_code: [new Utf8(), ["OK", "FINE"]] })),
    );
    expect(err.message).toBe('row 1, column "status_code" must be OK, ERROR or UNSET, not "FINE"');
  });

  it("times outside OTLP's fixed64 nanoseconds, naming the row, and their edges accepted", async () => {
    const start = (values: bigint[], type: DataType = new Int64()) =>
      exported(logged({ start_time: [type, values] }));
    expect((await refusal(() => start([0n, -1n]))).message).toBe(
      'row 1, column "start_time" must be nanoseconds since the epoch (0 to 2^64 - 1), not -1',
    );
    const max = (1n << 64n) - 1n;
    const { request } = await start([0n, max], new Uint64());
    expect(request.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => s.startTimeUnixNano)).toEqual([
      0n,
      max,
    ]);
    expect(
      (await refusal(() => exported(logged({ end_time: [new Int64(), [START, -5n]] })))).message,
    ).toMatch(/^row 1, column "end_time" must be nanoseconds since the epoch/);
  });

  it("an event time before the epoch or past 2^64 ns, naming its row; the epoch itself kept", async () => {
    const event = (timestamp: unknown) =>
      exported(logged({ events: [strings(), [[], [JSON.stringify({ name: "e", timestamp })]]] }));
    for (const timestamp of [-1, 2 ** 64, "1969-12-31T23:59:59Z"])
      expect((await refusal(() => event(timestamp))).message).toMatch(
        /^row 1, column "events", event 0: its timestamp must be nanoseconds since the epoch/,
      );
    const { request } = await event("1970-01-01T00:00:00Z");
    expect(request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.events[0]!.timeUnixNano).toBe(0n);
  });

  it("an event's integer nanoseconds are kept to the nanosecond, past what a double holds", async () => {
    // The nearest double to it is 1795966147613598976: truncated, the event came 1 µs early.
    const text = '{"name": "e", "timestamp": 1795966147613599000, "attributes": {"timestamp": 7}}';
    const { request } = await exported(logged({ events: [strings(), [[], [text]]] }));
    const e = request.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.events[0]!;
    expect(e.timeUnixNano).toBe(1795966147613599000n);
    expect(e.attributes.map((a) => [a.key, json(a.value)])).toEqual([["timestamp", 7]]);
  });

  it("an event that is not JSON of an object, naming its row", async () => {
    const err = await refusal(() => exported(logged({ events: [strings(), [[], ["{oops"]]] })));
    expect(err.message).toBe('row 1, column "events", event 0 is not JSON text of an object');
  });
});
