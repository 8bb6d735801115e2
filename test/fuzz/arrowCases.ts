/**
 * Hand-made bodies for `POST /v1/pandas_arrow`, for `./argus fuzz` (scripts/fuzz/arrowCorpus.ts).
 * Schemathesis's random bytes never get past "the body is not an Arrow IPC stream"; these are
 * well-formed streams with one thing wrong each (the metadata, a column's type, a value), so
 * that every check of pandasArrow.ts and spanLog.ts is reached, plus seeded mutations of a valid
 * stream (cut short, bytes overwritten) that exercise the Arrow reader itself. Deterministic:
 * the same seed makes the same bodies.
 */
import {
  Binary,
  Bool,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  Schema,
  Struct,
  Table,
  Utf8,
  makeData,
  RecordBatch,
  tableToIPC,
  vectorFromArray,
  type DataType,
  type Vector,
} from "apache-arrow";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";

export interface ArrowCase {
  name: string;
  body: Uint8Array;
  /** The status the route must answer; undefined: any, as long as it is no 5xx (mutations). */
  status?: number;
}

/** Mulberry32: a small seeded generator, so a seed names the same mutations everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const arizeSchema = (
  modelId: string,
  environment: Schema_Environment = Schema_Environment.TRACING,
): string =>
  Buffer.from(
    ArizeSchema.encode(ArizeSchema.fromJSON({ constants: { modelId, environment } })).finish(),
  ).toString("base64");

const text = (values: (string | null)[]) => vectorFromArray(values, new Utf8());

/** A stream of `columns`, its schema carrying `metadata` (the arize-schema, or none). */
function stream(columns: Record<string, Vector>, metadata?: string): Uint8Array {
  const table = new Table(columns);
  if (metadata !== undefined) table.schema.metadata.set("arize-schema", metadata);
  return tableToIPC(table, "stream");
}

/**
 * The valid cases and the bad ones for `project` (a name the fuzzing identity may create in its
 * space); span ids are derived from `seed`, so repeated runs do not collide.
 */
export function arrowCases(project: string, seed: number): ArrowCase[] {
  const rnd = random(seed);
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(rnd() * 256)
        .toString(16)
        .padStart(2, "0"),
    ).join("");
  const meta = arizeSchema(project);
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  const spanIds = [hex(8), hex(8)];
  const spans = (extra: Record<string, Vector> = {}): Record<string, Vector> => ({
    "context.span_id": text(spanIds),
    "context.trace_id": text([hex(16), hex(16)]),
    name: text(["fuzz a", "fuzz b"]),
    start_time: vectorFromArray([start, start + 1000n], new Int64()),
    end_time: vectorFromArray([start + 2000n, start + 3000n], new Int64()),
    ...extra,
  });
  const without = (column: string) => {
    const { [column]: _, ...rest } = spans();
    return rest;
  };
  const valid = stream(spans(), meta);
  const cases: ArrowCase[] = [
    { name: "a valid spans.log upload", body: valid, status: 200 },
    {
      name: "spans.log with every optional column",
      body: stream(
        spans({
          parent_id: text([null, spanIds[0]!]),
          span_kind: text(["LLM", "CHAIN"]),
          status_code: text(["OK", "ERROR"]),
          status_message: text(["", "boom"]),
          events: vectorFromArray(
            [[JSON.stringify({ name: "e", timestamp: "2026-01-01T00:00:00Z" })], []],
            new List(new Field("item", new Utf8(), true)),
          ),
          "attributes.llm.input_messages": vectorFromArray(
            [[JSON.stringify({ "message.role": "user" })], []],
            new List(new Field("item", new Utf8(), true)),
          ),
          "attributes.n": vectorFromArray([1.5, NaN], new Float64()),
          "attributes.flag": vectorFromArray([true, null], new Bool()),
          "attributes.kind": vectorFromArray(["x", "y"], new Dictionary(new Utf8(), new Int32())),
          "eval.fuzz.label": text(["good", null]),
          "eval.fuzz.score": vectorFromArray([1, null], new Float64()),
        }),
        meta,
      ),
      status: 200,
    },
    {
      name: "an upload of no rows",
      body: stream(
        {
          "context.span_id": text([]),
          "context.trace_id": text([]),
          name: text([]),
          start_time: vectorFromArray([], new Int64()),
        },
        meta,
      ),
    },
    { name: "no arize-schema metadata", body: stream(spans()), status: 400 },
    {
      name: "arize-schema not base64 protobuf",
      body: stream(spans(), "%%%not base64"),
      status: 400,
    },
    {
      name: "arize-schema of bytes that are no public.Schema",
      body: stream(spans(), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]).toString("base64")),
      status: 400,
    },
    {
      name: "arize-schema of ml.log (not TRACING)",
      body: stream(spans(), arizeSchema(project, Schema_Environment.PRODUCTION)),
      status: 400,
    },
    {
      name: "arize-schema naming no project",
      body: stream(spans(), arizeSchema(" ")),
      status: 400,
    },
    ...["context.span_id", "context.trace_id", "name", "start_time"].map((c) => ({
      name: `no ${c} column`,
      body: stream(without(c), meta),
      status: 400,
    })),
    ...(
      [
        ["start_time", vectorFromArray(["now", "later"], new Utf8())],
        ["end_time", vectorFromArray([1.5, 2.5], new Float64())],
        ["name", vectorFromArray([1n, 2n], new Int64())],
        ["events", text(["{}", "{}"])],
        ["attributes.blob", vectorFromArray([new Uint8Array([1]), null], new Binary())],
        [
          "attributes.nested",
          vectorFromArray(
            [{ b: new Uint8Array([1]) }, null],
            new Struct([new Field("b", new Binary(), true)]),
          ),
        ],
      ] as [string, Vector][]
    ).map(([column, vector]) => ({
      name: `column ${column} of Arrow type ${String(vector.type)}`,
      body: stream({ ...spans(), [column]: vector }, meta),
      status: 400,
    })),
    {
      name: "a column that is no span column",
      body: stream(spans({ colour: text(["red", "blue"]) }), meta),
      status: 400,
    },
    { name: "a column named twice", body: duplicateColumn(spans(), meta), status: 400 },
    {
      name: "status_code that is no status",
      body: stream(spans({ status_code: text(["MAYBE", "OK"]) }), meta),
      status: 400,
    },
    {
      name: "an event that is no JSON object",
      body: stream(
        spans({
          events: vectorFromArray([["[1]"], ["{"]], new List(new Field("item", new Utf8(), true))),
        }),
        meta,
      ),
      status: 400,
    },
    {
      name: "an event with a timestamp that is no time",
      body: stream(
        spans({
          events: vectorFromArray(
            [[JSON.stringify({ name: "e", timestamp: "soon" })], []],
            new List(new Field("item", new Utf8(), true)),
          ),
        }),
        meta,
      ),
      status: 400,
    },
    {
      name: "a list-of-objects attribute holding text that is no JSON",
      body: stream(
        spans({
          "attributes.llm.output_messages": vectorFromArray(
            [["not json"], []],
            new List(new Field("item", new Utf8(), true)),
          ),
        }),
        meta,
      ),
      status: 400,
    },
    {
      name: "null span and trace ids",
      body: stream(
        spans({ "context.span_id": text([null, null]), "context.trace_id": text(["zz", null]) }),
        meta,
      ),
      status: 400,
    },
    {
      name: "times far outside what storage keeps",
      body: stream(
        spans({
          start_time: vectorFromArray([-1n, 9_223_372_036_854_775_807n], new Int64()),
          end_time: vectorFromArray([-9_223_372_036_854_775_808n, 0n], new Int64()),
        }),
        meta,
      ),
      status: 400,
    },
    {
      name: "evaluations joined to the spans with a score that is text",
      body: stream(spans({ "eval.fuzz.score": text(["high", "low"]) }), meta),
      status: 400,
    },
    // spans.update_evaluations(force_http=True): the span ids and eval.* columns only.
    {
      name: "evaluations of spans that do not exist",
      body: stream(
        {
          "context.span_id": text([hex(8)]),
          "eval.fuzz.label": text(["good"]),
          "eval.fuzz.score": vectorFromArray([0.5], new Float64()),
        },
        meta,
      ),
      status: 200,
    },
    {
      name: "evaluations with no eval column",
      body: stream({ "context.span_id": text([hex(8)]) }, meta),
    },
    {
      name: "evaluations with a column that is no evaluation field",
      body: stream({ "context.span_id": text([hex(8)]), "eval.fuzz.colour": text(["red"]) }, meta),
      status: 400,
    },
    {
      name: "evaluations with a score that is text",
      body: stream({ "context.span_id": text([hex(8)]), "eval.fuzz.score": text(["high"]) }, meta),
      status: 400,
    },
    {
      name: "evaluations with a null span id",
      body: stream({ "context.span_id": text([null]), "eval.fuzz.label": text(["x"]) }, meta),
      status: 400,
    },
    {
      name: "an Arrow file, not a stream",
      body: tableToIPC(
        (() => {
          const t = new Table(spans());
          t.schema.metadata.set("arize-schema", meta);
          return t;
        })(),
        "file",
      ),
    },
    { name: "an empty body", body: new Uint8Array(0), status: 400 },
  ];
  // The valid stream cut short: inside the schema message, inside the batch, just before the end.
  for (const at of [4, 8, 64, valid.length >> 1, valid.length - 16, valid.length - 1])
    cases.push({ name: `the valid stream cut at byte ${at}`, body: valid.slice(0, at) });
  // Bytes of the valid stream overwritten at seeded places: lengths, offsets and counts the
  // reader trusts.
  for (let i = 0; i < 40; i++) {
    const body = valid.slice();
    const n = 1 + Math.floor(rnd() * 4);
    for (let k = 0; k < n; k++)
      body[Math.floor(rnd() * body.length)] = [0x00, 0xff, 0x7f, 0x80][Math.floor(rnd() * 4)]!;
    cases.push({ name: `the valid stream with ${n} bytes overwritten (mutation ${i})`, body });
  }
  return cases;
}

/** A stream whose schema names one column twice (Table would merge them, so built by hand). */
function duplicateColumn(columns: Record<string, Vector>, metadata: string): Uint8Array {
  const entries = Object.entries(columns);
  const [name, vector] = entries.find(([n]) => n === "name")!;
  const all: [string, Vector][] = [...entries, [name, vector]];
  const schema = new Schema(
    all.map(([n, v]) => new Field(n, v.type as DataType, true)),
    new Map([["arize-schema", metadata]]),
  );
  const data = makeData({
    type: new Struct(schema.fields),
    length: vector.length,
    nullCount: 0,
    children: all.map(([, v]) => v.data[0]!),
  });
  return tableToIPC(new Table([new RecordBatch(schema, data)]), "stream");
}
