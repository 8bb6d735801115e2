import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { callServerStream, type Principal } from "@argus/platform";
import {
  ColumnKind,
  type ExportHeader,
  type ExportMessage,
  type TextColumn,
} from "@argus/proto/dataset/v1/bulk";
import {
  TracingServiceService as T,
  type ExportSpansRequest,
} from "@argus/proto/tracing/v1/tracing";
import { startedForFile, uniqueName } from "@argus/testkit";
import { EXPORT_BATCH } from "../src/spans/spanDownload.ts";
import { postgresSpanStore } from "../src/storage/postgres.ts";
import { exportRaw, newSpanId, newTraceId, projectIdOf, type RawSpan } from "./spans.ts";
import { problemOf, problemWith, startTracingUnderTest } from "./tracingUnderTest.ts";

/** The SDK's span export on the tracing side: CountExportSpans and the ExportSpans stream. */

const t = startedForFile(() => startTracingUnderTest());

// Whole seconds, as the SDK sends them, a few minutes ago (within the kept days).
const BASE = Math.floor((Date.now() - 600_000) / 1000) * 1000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Value i of a column as text: a text column's bytes, or a fixed-width one's (TextColumn.fixed)
 * int64 or float64 in decimal, as JavaScript spells it.
 */
function text(c: TextColumn, i: number, kinds: number): string | null {
  if (c.validity.length > 0 && (c.validity[i >> 3]! & (1 << (i & 7))) === 0) return null;
  if (c.offsets.length === 0) {
    const fixed = Buffer.from(c.fixed);
    return kinds === ColumnKind.COLUMN_KIND_INTEGER
      ? String(fixed.readBigInt64LE(8 * i))
      : String(fixed.readDoubleLE(8 * i));
  }
  const o = new Int32Array(
    c.offsets.buffer.slice(c.offsets.byteOffset, c.offsets.byteOffset + c.offsets.byteLength),
  );
  return Buffer.from(c.data).toString("utf8", o[i], o[i + 1]);
}

/**
 * The stream: its header, each batch's row count, every row by column name, and the names of
 * the columns sent fixed-width.
 */
async function download(req: Partial<ExportSpansRequest>, as?: Principal) {
  const stream = callServerStream(t.tracing, T.exportSpans, request(req), {
    credential: t.keys.caller(as ?? t.admin),
    requestId: "export-test",
  });
  let header: ExportHeader | undefined;
  const batches: number[] = [];
  const rows: Record<string, string | null>[] = [];
  const fixed = new Set<string>();
  for await (const m of stream as AsyncIterable<ExportMessage>) {
    if (m.part?.$case === "header") header = m.part.value;
    else if (m.part?.$case === "batch") {
      const b = m.part.value;
      batches.push(b.rowCount);
      header!.columns.forEach((c, j) => b.columns[j]!.offsets.length === 0 && fixed.add(c.name));
      for (let i = 0; i < b.rowCount; i++)
        rows.push(
          Object.fromEntries(
            header!.columns.map((c, j) => [c.name, text(b.columns[j]!, i, c.kinds)]),
          ),
        );
    }
  }
  return { header: header!, batches, rows, fixed };
}

let project = "";
const request = (req: Partial<ExportSpansRequest>): ExportSpansRequest => ({
  spaceId: t.spaceId,
  projectName: project,
  startTime: iso(BASE),
  endTime: iso(BASE + 60_000),
  filter: "",
  columns: [],
  ...req,
});
const count = async (req: Partial<ExportSpansRequest>, as?: Principal) =>
  Number((await t.call(T.countExportSpans, request(req), as)).totalRecords);

// 4097 spans a millisecond apart from BASE: one batch of 4096 and one of 1; one more span
// exactly at the window's end (excluded), with attributes of every kind.
const SPANS = EXPORT_BATCH.rows + 1;
const spans: RawSpan[] = [];

beforeAll(async () => {
  project = uniqueName("export");
  for (let i = 0; i < SPANS; i++)
    spans.push({
      traceId: newTraceId(),
      spanId: newSpanId(),
      name: i === 0 ? "first" : "other",
      startMs: BASE + i,
      durationMs: i === 0 ? 12.345 : 10,
      attributes: {
        "llm.token_count.total": i,
        score: i + 0.5,
        ok: i % 2 === 0,
        "input.value": `q${i}`,
      },
    });
  spans.push({
    traceId: newTraceId(),
    spanId: newSpanId(),
    name: "at-end",
    startMs: BASE + 60_000,
  });
  const res = await exportRaw(t, project, spans);
  expect(res.rejectedSpans).toBe(0n);
}, 120_000);

describe("ExportSpans", () => {
  it("every span of [start, end) once, in batches of 4096; the count says as many", async () => {
    expect(await count({})).toBe(SPANS);
    const got = await download({});
    expect(EXPORT_BATCH.rows).toBe(4096);
    expect(got.batches).toEqual([4096, 1]);
    expect(got.rows.map((r) => r["context.span_id"]).sort()).toEqual(
      spans
        .slice(0, SPANS)
        .map((s) => s.spanId)
        .sort(),
    );
    // The start is inclusive: the span at BASE is there; the one at the end is not.
    expect(got.rows.some((r) => r.name === "first")).toBe(true);
    expect(got.rows.some((r) => r.name === "at-end")).toBe(false);
    expect(await count({ endTime: iso(BASE + 60_001) })).toBe(SPANS + 1);
    // The last span starts at BASE + 4096 ms.
    expect(await count({ startTime: iso(BASE + SPANS - 1) })).toBe(1);
    expect(await count({ startTime: iso(BASE + SPANS) })).toBe(0);
  });

  it("columns: span fields, then attributes with the kinds of their values; times in ns", async () => {
    const got = await download({ filter: "name = 'first'" });
    const kinds = Object.fromEntries(got.header.columns.map((c) => [c.name, c.kinds]));
    expect(kinds).toMatchObject({
      "context.span_id": ColumnKind.COLUMN_KIND_STRING,
      time: ColumnKind.COLUMN_KIND_INTEGER,
      "attributes.llm.token_count.total": ColumnKind.COLUMN_KIND_INTEGER,
      "attributes.score": ColumnKind.COLUMN_KIND_FLOAT,
      "attributes.ok": ColumnKind.COLUMN_KIND_BOOL,
      "attributes.input.value": ColumnKind.COLUMN_KIND_STRING,
    });
    expect(got.rows).toHaveLength(1);
    expect(got.rows[0]).toMatchObject({
      "context.span_id": spans[0]!.spanId,
      "context.trace_id": spans[0]!.traceId,
      parent_id: null,
      time: String(BigInt(BASE) * 1_000_000n),
      start_time: String(BigInt(BASE) * 1_000_000n),
      end_time: String(BigInt(BASE) * 1_000_000n + 12_345_000n),
      // As JavaScript divides the nanoseconds by 1e6.
      latency_ms: String(12_345_000 / 1e6),
      "attributes.llm.token_count.total": "0",
      "attributes.score": "0.5",
      "attributes.ok": "true",
      "attributes.input.value": "q0",
    });
    expect(await count({ filter: "name = 'first'" })).toBe(1);
    // Times and the latency as int64 and float64 values, never as decimal text.
    expect([...got.fixed].sort()).toEqual(["end_time", "latency_ms", "start_time", "time"]);
  });

  it("a filter's values (text, and a dotted attribute's path as text[]) reach the one COPY", async () => {
    const got = await download({ filter: "attributes.llm.token_count.total IN (5, 6)" });
    expect(got.rows.map((r) => r["attributes.input.value"]).sort()).toEqual(["q5", "q6"]);
    const quoted = await download({ filter: "attributes.input.value IN ('q7', 'it''s')" });
    expect(quoted.rows.map((r) => r["attributes.input.value"])).toEqual(["q7"]);
  });

  it("projected columns: the named ones, and time always (the SDK sorts by it)", async () => {
    const got = await download({ columns: ["name", "attributes.score"], filter: "name = 'first'" });
    expect(got.header.columns.map((c) => c.name)).toEqual(["name", "time", "attributes.score"]);
  });

  it("an empty window streams the header only", async () => {
    const got = await download({ startTime: iso(BASE - 60_000), endTime: iso(BASE) });
    expect(got.batches).toEqual([]);
    expect(got.header.columns.length).toBeGreaterThan(0);
  });

  it("sample_rate: a span is kept when the md5 of its trace id falls under the rate; count and stream agree", async () => {
    const kept = (rate: number) =>
      spans
        .slice(0, SPANS)
        .filter(
          (s) =>
            parseInt(createHash("md5").update(s.traceId).digest("hex").slice(0, 8), 16) <
            Math.floor(rate * 2 ** 32),
        )
        .map((s) => s.spanId)
        .sort();
    const ids = async (req: Partial<ExportSpansRequest>) =>
      (await download(req)).rows.map((r) => r["context.span_id"]!).sort();
    const half = kept(0.5);
    // 4097 traces of a span each, random ids: about half (σ ≈ 32), far from both ends.
    expect(half.length).toBeGreaterThan(1800);
    expect(half.length).toBeLessThan(2300);
    expect(await count({ sampleRate: 0.5 })).toBe(half.length);
    expect(await ids({ sampleRate: 0.5 })).toEqual(half);
    // The same spans call after call, and a smaller rate's sample inside a larger one's.
    expect(await ids({ sampleRate: 0.5 })).toEqual(half);
    const quarter = await ids({ sampleRate: 0.25 });
    expect(quarter).toEqual(kept(0.25));
    expect(quarter.every((id) => half.includes(id))).toBe(true);
    // With a filter (its parameters first, then the rate's).
    expect(await count({ sampleRate: 0.5, filter: "name = 'first'" })).toBe(
      half.includes(spans[0]!.spanId) ? 1 : 0,
    );
    // The edges: 1 is every span; the smallest positive rate none; 0, above 1, NaN refused.
    expect(await count({ sampleRate: 1 })).toBe(SPANS);
    expect(await count({ sampleRate: Number.MIN_VALUE })).toBe(0);
    for (const rate of [0, -0.5, 1 + Number.EPSILON, Number.NaN])
      expect(await problemWith(count({ sampleRate: rate })), String(rate)).toEqual({
        type: "invalid-request",
        detail: "sample_rate must be above 0 and at most 1",
      });
  });

  it("refusals: unknown project or space 404, a bad window or filter 400, no span read 403", async () => {
    expect(await problemOf(count({ projectName: uniqueName("none") }))).toBe("resource-not-found");
    expect(await problemOf(count({ spaceId: "nope" }))).toBe("resource-not-found");
    expect(await problemOf(count({ endTime: iso(BASE) }))).toBe("invalid-request");
    expect(await problemOf(count({ startTime: "yesterday" }))).toBe("invalid-request");
    expect(await problemOf(count({ filter: "name = = 'x'" }))).toBe("invalid-request");
    expect(await problemOf(download({ filter: "name = = 'x'" }))).toBe("invalid-request");
    // The REST list's permission, PROJECT_SPAN_READ on the project (a private space: a
    // public one lets every member read).
    const privateSpace = await t.createSpace(true);
    const hidden = uniqueName("export-private");
    const put = await exportRaw(
      t,
      hidden,
      [{ traceId: newTraceId(), spanId: newSpanId(), startMs: BASE }],
      {
        spaceId: privateSpace,
      },
    );
    expect(put.rejectedSpans).toBe(0n);
    const there = { spaceId: privateSpace, projectName: hidden };
    const noSpans = t.member({ [privateSpace]: ["PROJECT_READ"] });
    expect(await problemOf(count(there, noSpans))).toBe("access-forbidden");
    expect(await problemOf(download(there, noSpans))).toBe("access-forbidden");
    expect(await problemOf(count(there, t.member()))).toBe("resource-not-found");
    expect(await count(there, t.member({ [privateSpace]: "READ_ONLY" }))).toBe(1);
  });
});

/**
 * The export's attribute columns as they were read before the catalog: every key the window's
 * spans hold, typed by the kinds of the values it holds there (the same rule as the catalog's).
 */
async function scannedKeys(projectId: string, start: number, end: number) {
  const { rows } = await t.pool.query<{ key: string; kinds: number }>(
    `select k.key, bit_or(case jsonb_typeof(k.value)
                            when 'string' then 1 when 'boolean' then 2
                            when 'number' then case when k.value::text ~ '^-?[0-9]{1,15}$' then 4 else 8 end
                            when 'null' then 0 else 16 end)::integer as kinds
       from spans s, jsonb_each(s.attributes) as k(key, value)
      where s.project_id = $1 and s.start_time >= $2 and s.start_time < $3
      group by k.key order by k.key`,
    [projectId, iso(start), iso(end)],
  );
  return rows.map((r) => ({ name: `attributes.${r.key}`, kinds: r.kinds }));
}

const attributeColumns = (h: ExportHeader) =>
  h.columns.filter((c) => c.name.startsWith("attributes."));

const {
  COLUMN_KIND_STRING,
  COLUMN_KIND_BOOL,
  COLUMN_KIND_INTEGER,
  COLUMN_KIND_FLOAT,
  COLUMN_KIND_JSON,
} = ColumnKind;

describe("the attribute-key catalog the export's columns come from", () => {
  const span = (startMs: number, attributes: Record<string, unknown>, name = "s"): RawSpan => ({
    traceId: newTraceId(),
    spanId: newSpanId(),
    name,
    startMs,
    attributes,
  });

  it("spans through OTLP, of mixed kinds over two uploads: the columns and types the scan of the window gave", async () => {
    const name = uniqueName("export-kinds");
    const first = [
      span(BASE, { mixed: 1, num: 2, obj: { a: 1 }, flag: true, big: 1e15, text: "x", neg: -5 }),
      span(BASE + 1, { mixed: 2, num: 3, text: "y" }),
    ];
    expect((await exportRaw(t, name, first)).rejectedSpans).toBe(0n);
    // The second upload widens known keys and adds new ones.
    const second = [
      span(BASE + 2, { mixed: "one", num: 2.5, list: [1, "a"], flag: false }),
      span(BASE + 3, { "a.b.c": "deep", neg: 7 }),
    ];
    expect((await exportRaw(t, name, second)).rejectedSpans).toBe(0n);
    // A span sent again with other values is not stored again, and adds no kind.
    const again = { ...first[1]!, attributes: { mixed: 2.5, resent: "no" } };
    expect((await exportRaw(t, name, [again])).rejectedSpans).toBe(0n);

    const projectId = await projectIdOf(t, name);
    const got = await download({ projectName: name });
    expect(got.rows).toHaveLength(4);
    const columns = attributeColumns(got.header);
    expect(columns).toEqual(await scannedKeys(projectId, BASE, BASE + 60_000));
    expect(Object.fromEntries(columns.map((c) => [c.name, c.kinds]))).toEqual({
      "attributes.a.b.c": COLUMN_KIND_STRING,
      // 16 digits: more than the 15 an integer column keeps exact through JavaScript.
      "attributes.big": COLUMN_KIND_FLOAT,
      "attributes.flag": COLUMN_KIND_BOOL,
      "attributes.list": COLUMN_KIND_JSON,
      "attributes.mixed": COLUMN_KIND_INTEGER | COLUMN_KIND_STRING,
      "attributes.neg": COLUMN_KIND_INTEGER,
      "attributes.num": COLUMN_KIND_INTEGER | COLUMN_KIND_FLOAT,
      "attributes.obj": COLUMN_KIND_JSON,
      "attributes.openinference.span.kind": COLUMN_KIND_STRING,
      "attributes.text": COLUMN_KIND_STRING,
    });
    expect(got.rows.map((r) => r["attributes.mixed"]).sort()).toEqual(["1", "2", null, "one"]);
  });

  it("a window reads the keys of the days it touches: its end's day only when the end is past midnight", async () => {
    const name = uniqueName("export-days");
    const midnight = Math.floor(BASE / 86_400_000) * 86_400_000;
    const spansOf = [
      span(midnight - 12 * 3_600_000, { yesterday: 1 }),
      span(midnight, { today: "a" }),
    ];
    expect((await exportRaw(t, name, spansOf)).rejectedSpans).toBe(0n);
    const names = async (start: number, end: number, filter = "") =>
      attributeColumns(
        (await download({ projectName: name, startTime: iso(start), endTime: iso(end), filter }))
          .header,
      ).map((c) => c.name);
    const dayBefore = midnight - 86_400_000;
    // Every span carries its kind (the test's OTLP encoding writes it).
    const KIND = "attributes.openinference.span.kind";
    expect(await names(dayBefore, midnight)).toEqual([KIND, "attributes.yesterday"]);
    expect(await names(dayBefore, midnight + 1)).toEqual([
      KIND,
      "attributes.today",
      "attributes.yesterday",
    ]);
    expect(await names(midnight, midnight + 1000)).toEqual([KIND, "attributes.today"]);
    // Within a day, the window's edges and the filter are not applied: a key of the day with no
    // value among the spans exported is an all-null column.
    const filtered = await download({
      projectName: name,
      startTime: iso(dayBefore),
      endTime: iso(midnight + 1000),
      filter: "name = 'none'",
    });
    expect(attributeColumns(filtered.header).map((c) => c.name)).toEqual([
      KIND,
      "attributes.today",
      "attributes.yesterday",
    ]);
    expect(filtered.rows).toEqual([]);
  });

  it("metadata set on stored spans joins the catalog with them", async () => {
    const name = uniqueName("export-metadata");
    const one = span(BASE, { text: "x" });
    expect((await exportRaw(t, name, [one])).rejectedSpans).toBe(0n);
    const projectId = await projectIdOf(t, name);
    const store = postgresSpanStore(t.pool);
    const window = { start: iso(BASE), end: iso(BASE + 1) };
    const client = await t.pool.connect();
    try {
      await client.query("begin");
      const rows = await store.metadataOf(client, projectId, [one.spanId], window);
      expect(rows).toHaveLength(1);
      await store.setMetadata(client, projectId, [{ ...rows[0]!, metadata: { tier: "gold" } }]);
      await client.query("commit");
    } finally {
      client.release();
    }
    const got = await download({ projectName: name });
    expect(attributeColumns(got.header)).toEqual([
      { name: "attributes.metadata", kinds: COLUMN_KIND_JSON },
      { name: "attributes.openinference.span.kind", kinds: COLUMN_KIND_STRING },
      { name: "attributes.text", kinds: COLUMN_KIND_STRING },
    ]);
    expect(got.rows[0]!["attributes.metadata"]).toBe('{"tier":"gold"}');
  });

  it("the migration fills the catalog from the spans already stored", async () => {
    const migration = readFileSync(
      new URL("../migrations/0005_span_attribute_keys.sql", import.meta.url),
      "utf8",
    );
    const [a, b] = ["00000000-0000-7000-8000-00000000000a", "00000000-0000-7000-8000-00000000000b"];
    const client = await t.pool.connect();
    try {
      await client.query("begin");
      // A schema of its own: the migration, run again there, reads its spans only.
      await client.query("create schema span_keys_backfill");
      await client.query("set local search_path = span_keys_backfill");
      await client.query("create table spans (like tracing.spans including defaults)");
      await client.query(
        `insert into spans (project_id, start_time, trace_id, span_id, name, kind, end_time,
                            status_code, status_message, attributes, events)
         select x.p::uuid, x.t::timestamptz, 't', 's' || n, 'n', 'LLM', x.t::timestamptz,
                'UNSET', '', x.a::jsonb, '[]'
           from unnest($1::text[], $2::text[], $3::text[]) with ordinality as x(p, t, a, n)`,
        [
          [a, a, a, a, b],
          [
            "2026-11-20T23:59:59.999999Z",
            "2026-11-20T10:00:00Z",
            "2026-11-21T00:00:00Z",
            "2026-11-21T01:00:00Z",
            "2026-11-20T10:00:00Z",
          ],
          [
            '{"late": 1, "mixed": "s"}',
            '{"mixed": 1234567890123456, "early": true, "none": null}',
            '{"mixed": 1}',
            '{"mixed": {"x": 1}}',
            '{"other": [1]}',
          ],
        ],
      );
      await client.query(migration);
      const { rows } = await client.query<{ p: string; day: string; key: string; kinds: number }>(
        `select project_id as p, day::text as day, key, kinds from span_attribute_keys order by seq`,
      );
      expect(rows).toEqual([
        // Per project and day, in the order the keys first appear (by start time), then by key.
        { p: a, day: "2026-11-20", key: "early", kinds: COLUMN_KIND_BOOL },
        { p: a, day: "2026-11-20", key: "mixed", kinds: COLUMN_KIND_FLOAT | COLUMN_KIND_STRING },
        { p: a, day: "2026-11-20", key: "none", kinds: 0 },
        { p: a, day: "2026-11-20", key: "late", kinds: COLUMN_KIND_INTEGER },
        { p: a, day: "2026-11-21", key: "mixed", kinds: COLUMN_KIND_INTEGER | COLUMN_KIND_JSON },
        { p: b, day: "2026-11-20", key: "other", kinds: COLUMN_KIND_JSON },
      ]);
    } finally {
      await client.query("rollback");
      client.release();
    }
  });
});
