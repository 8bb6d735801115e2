import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "@argus/testkit";
import { ensurePythonSdk, python, root, run } from "./python-sdk.ts";
import { recentWindow, sendSpans, type SentSpans } from "./spans-support.ts";
import { startApi, type Api, type Json } from "./support.ts";

/**
 * The official Python SDK's span updates over Arrow Flight (public-v2-flight.md rows 6–7),
 * without force_http, on spans ingested over OTLP: what the SDK answers, and the spans as REST
 * reads them afterwards; then its span export (rows 9–10), compared with what REST lists.
 */

let api: Api;
let sent: SentSpans;
let out: Record<string, { type: string; message?: string; answer?: Json }>;
const SPANS = 6;
const UNMATCHED = "00000000000000ff";
const config = uniqueName("quality").replace(/-/g, "_");

beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi();
  const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
  const orgId = (await api.ok("GET", "/v2/organizations")).organizations[0].id as string;
  const readOnlyKey = (
    await api.ok("POST", "/v2/api-keys", {
      key_type: "SERVICE",
      name: uniqueName("flight-spans"),
      organizations: [
        {
          org_id: orgId,
          role: { name: "READ_ONLY" },
          spaces: [{ space_id: spaceId, role: { type: "PREDEFINED", name: "READ_ONLY" } }],
        },
      ],
    })
  ).key as string;
  const project = uniqueName("flight-spans");
  sent = await sendSpans(api.stack, { spaceId, projectName: project, traces: 3, spansPerTrace: 2 });
  await api.ok("POST", "/v2/annotation-configs", {
    name: config,
    space_id: spaceId,
    annotation_config_type: "CATEGORICAL",
    values: [{ label: "good" }, { label: "bad" }],
  });
  const { stdout } = await run(
    python,
    [
      "test/python/flight_spans.py",
      api.stack.baseUrl,
      api.stack.apiKey,
      api.stack.flightAddress,
      JSON.stringify({
        space_id: spaceId,
        project,
        span_ids: sent.spanIds,
        unmatched: UNMATCHED,
        unknown_project: uniqueName("no-such-project"),
        config,
        read_only_key: readOnlyKey,
      }),
    ],
    { cwd: root, timeout: 300_000 },
  );
  out = JSON.parse(stdout.trim().split("\n").at(-1)!) as typeof out;
}, 300_000);
afterAll(async () => {
  await api?.stop();
});

async function spansById(): Promise<Map<string, Json>> {
  const listed = await api.ok("POST", "/v2/spans?limit=100", {
    project_id: sent.projectId,
    ...recentWindow(),
  });
  return new Map((listed.spans as Json[]).map((s) => [s.context.span_id as string, s]));
}

const byName = (list: Json[]) =>
  Object.fromEntries(list.map((e) => [e.name as string, e])) as Record<string, Json>;

describe("the SDK's span updates over Flight", () => {
  it("update_evaluations: every span gets its row's evaluations; the unknown id is reported", async () => {
    expect(sent.spanIds).toHaveLength(SPANS);
    expect(out.update_evaluations).toEqual({
      type: "ok",
      answer: { records_updated: String(SPANS), unmatched_ids: [UNMATCHED] },
    });
    const spans = await spansById();
    sent.spanIds.forEach((id, i) => {
      const evals = byName(spans.get(id)!.evaluations as Json[]);
      expect(evals.correctness, id).toMatchObject({
        label: `label ${i}`,
        score: i / 10,
        explanation: `because ${i}`,
      });
      // A value the row left out is none at all.
      if (i % 2 === 0) expect(evals.tone, id).toEqual({ name: "tone", label: "calm" });
      else expect(evals.tone, id).toBeUndefined();
    });
  });

  it("update_annotations: by config name, fields left out are kept out; the unknown id is reported", async () => {
    expect(out.update_annotations).toEqual({
      type: "ok",
      answer: { records_updated: "3", unmatched_ids: [UNMATCHED] },
    });
    const spans = await spansById();
    const annotation = (i: number) => byName(spans.get(sent.spanIds[i]!)!.annotations as Json[]);
    expect(annotation(0)[config]).toMatchObject({ label: "good", score: 1, text: "fine" });
    expect(annotation(1)[config]).toMatchObject({ label: "bad", score: 0 });
    expect(annotation(1)[config]!.text ?? null).toBeNull();
    expect(annotation(2)[config]).toMatchObject({ score: 0.5, text: "meh" });
    expect(annotation(2)[config]!.label ?? null).toBeNull();
    expect(annotation(3)[config]).toBeUndefined();
  });

  it("update_metadata: patches merged into the spans' metadata; an id of no span is an error of its own", async () => {
    expect(out.update_metadata).toEqual({
      type: "ok",
      answer: {
        spans_processed: "3",
        spans_updated: "2",
        spans_failed: "1",
        errors: [{ span_id: UNMATCHED, error_message: expect.stringMatching(/no span/) }],
      },
    });
    expect(out["update_metadata again"]).toEqual({
      type: "ok",
      answer: { spans_processed: "1", spans_updated: "1" },
    });
    const spans = await spansById();
    // Kept as OTLP sends it, JSON text; a null sets null.
    const metadata = (i: number) =>
      JSON.parse(spans.get(sent.spanIds[i]!)!.attributes.metadata as string) as Json;
    expect(metadata(0)).toEqual({ tag: null, n: 1, nested: { b: 2 } });
    expect(metadata(1)).toEqual({ tag: "standard", n: 2 });
    expect(spans.get(sent.spanIds[2]!)!.attributes.metadata).toBeUndefined();
  });

  it("update_evaluations(force_http=True): POST /v1/pandas_arrow writes the same; unknown projects are 404", async () => {
    expect(out["update_evaluations over HTTP"]).toEqual({
      type: "ok",
      answer: { status: 200, body: { records_updated: 2, unmatched_ids: [UNMATCHED] } },
    });
    const spans = await spansById();
    const http = (i: number) =>
      byName(spans.get(sent.spanIds[i]!)!.evaluations as Json[]).http_eval;
    expect(http(0)).toEqual({ name: "http_eval", label: "h0", score: 0.25 });
    expect(http(1)).toEqual({ name: "http_eval", label: "h1" });
    expect(http(2)).toBeUndefined();
    expect(out["unknown project over HTTP"]).toMatchObject({ type: "APIError" });
    expect(out["unknown project over HTTP"]!.message).toMatch(/404|project not found/);
  });

  it("refusals reach the client as its errors, naming the cause", () => {
    expect(out["unknown project"]).toMatchObject({ type: "RuntimeError" });
    expect(out["unknown project"]!.message).toMatch(/project not found/);
    expect(out["no span id column"]).toMatchObject({ type: "RuntimeError" });
    expect(out["no span id column"]!.message).toMatch(/no "context\.span_id" column/);
    expect(out["unknown annotation config"]).toMatchObject({ type: "RuntimeError" });
    expect(out["unknown annotation config"]!.message).toMatch(
      /"nosuchconfig" is no annotation config of this space/,
    );
    expect(out["a row without span id"]).toMatchObject({ type: "RuntimeError" });
    expect(out["a row without span id"]!.message).toMatch(/row 1 has no span id/);
    expect(out["read-only key"]).toMatchObject({ type: "RuntimeError" });
    expect(out["read-only key"]!.message).toMatch(
      /unauthorized error.*PROJECT_SPAN_EVAL_FEEDBACK_UPDATE/is,
    );
    expect(out["wrong key"]).toMatchObject({ type: "RuntimeError" });
    expect(out["wrong key"]!.message).toMatch(
      /unauthenticated error.*missing or invalid API key/is,
    );
  });

  it("a refused upload writes nothing, not even its valid rows", async () => {
    for (const span of (await spansById()).values())
      expect(byName(span.evaluations as Json[]).refused).toBeUndefined();
  });
});

type Exported = { rows: number; columns: string[]; records: Json[] };

describe("the SDK's span export over Flight (GetFlightInfo + DoGet)", () => {
  it("export_to_df: every span of the window, its fields as POST /v2/spans has them, time as the start", async () => {
    expect(out.export_to_df).toMatchObject({ type: "ok" });
    const got = out.export_to_df!.answer as Exported;
    expect(got.rows).toBe(SPANS);
    expect(got.columns).toEqual(
      expect.arrayContaining([
        "context.span_id",
        "context.trace_id",
        "parent_id",
        "name",
        "span_kind",
        "start_time",
        "end_time",
        "time",
        "status_code",
        "attributes.openinference.span.kind",
        "attributes.metadata",
      ]),
    );
    const spans = await spansById();
    expect(got.records.map((r) => r["context.span_id"]).sort()).toEqual([...spans.keys()].sort());
    for (const r of got.records) {
      const span = spans.get(r["context.span_id"] as string)!;
      const id = r["context.span_id"] as string;
      expect(r["context.trace_id"], id).toBe(span.context.trace_id);
      expect(r.name, id).toBe(span.name);
      expect(r.span_kind, id).toBe(span.kind);
      expect(r.status_code, id).toBe(span.status_code);
      expect(r.parent_id ?? undefined, id).toBe(span.parent_id);
      // The SDK turns the nanoseconds into timestamps (here ISO text to the microsecond).
      expect(Date.parse(r.start_time as string), id).toBe(Date.parse(span.start_time as string));
      expect(Date.parse(r.end_time as string), id).toBe(Date.parse(span.end_time as string));
      expect(r["attributes.openinference.span.kind"], id).toBe(
        span.attributes["openinference.span.kind"],
      );
      // JSON text, as REST keeps it; the SDK parses metadata into a dict.
      const metadata = span.attributes.metadata as string | undefined;
      expect(r["attributes.metadata"] ?? undefined, id).toEqual(
        metadata === undefined ? undefined : JSON.parse(metadata),
      );
    }
    // `time` is the start in nanoseconds (the SDK sorts by it and leaves it a number).
    for (const r of got.records)
      expect(Math.round((r.time as number) / 1e6), r["context.span_id"] as string).toBe(
        Date.parse(r.start_time as string),
      );
  });

  it("the filter language of POST /v2/spans and projected columns apply", () => {
    expect(out["export_to_df filtered"]).toMatchObject({ type: "ok" });
    expect(out["export_to_df projected"]).toMatchObject({ type: "ok" });
    const filtered = out["export_to_df filtered"]!.answer as Exported;
    expect(filtered.rows).toBe(1);
    expect(filtered.records[0]!["context.span_id"]).toBe(sent.rootSpanIds[0]);
    const projected = out["export_to_df projected"]!.answer as Exported;
    expect(projected.rows).toBe(SPANS);
    // `time` comes always: the SDK sorts by it; `index` is the SDK's own (its reset_index after
    // the sort).
    expect(projected.columns.sort()).toEqual(["context.span_id", "index", "name", "time"]);
  });

  it("sample_rate: whole traces, those whose trace id's md5 falls under it, as counted", async () => {
    expect(out["export_to_df sampled"]).toMatchObject({ type: "ok" });
    const got = out["export_to_df sampled"]!.answer as Exported;
    const kept = [...(await spansById()).values()]
      .filter(
        (s) =>
          parseInt(
            createHash("md5")
              .update(s.context.trace_id as string)
              .digest("hex")
              .slice(0, 8),
            16,
          ) <
          2 ** 31,
      )
      .map((s) => s.context.span_id as string)
      .sort();
    // An empty sample is total_records 0, after which the SDK asks nothing more.
    expect(got.rows).toBe(kept.length);
    expect(got.records.map((r) => r["context.span_id"]).sort()).toEqual(kept);
  });

  it("export_to_parquet writes the same spans", async () => {
    expect(out.export_to_parquet).toEqual({
      type: "ok",
      answer: { rows: SPANS, span_ids: [...(await spansById()).keys()].sort() },
    });
  });

  it("an empty window answers total_records 0: an empty frame, no DoGet", () => {
    expect(out["export_to_df empty window"]).toEqual({
      type: "ok",
      answer: { rows: 0, columns: [], records: [] },
    });
  });

  it("an unknown project is NOT_FOUND and a bad filter INVALID_ARGUMENT, as the client reports them", () => {
    expect(out["export_to_df unknown project"]).toMatchObject({ type: "RuntimeError" });
    expect(out["export_to_df unknown project"]!.message).toMatch(/not ?found.*project not found/is);
    expect(out["export_to_df bad filter"]).toMatchObject({ type: "RuntimeError" });
    expect(out["export_to_df bad filter"]!.message).toMatch(/invalid/i);
  });
});
