/**
 * Spans in over OTLP, as a plain OpenTelemetry JS SDK sends them (the real exporters: protobuf
 * and JSON over HTTP, gRPC to the gateway's OTLP/gRPC port), and back out through the REST
 * operations: `POST /v2/spans`, `POST /v2/traces`, `POST /v2/spans/annotate`, `DELETE
 * /v2/spans`. Then what the gateway refuses, and how: OTLP's own status bodies, partial
 * success, nothing half-written.
 */
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as GrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type SpanExporter,
} from "@opentelemetry/sdk-trace";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { identityDb, newUser } from "./identity-fixtures.ts";
import { projectIdOf, recentWindow, sendSpans } from "./spans-support.ts";

// The gateway's own grpc-js, for the gRPC exporter's metadata (not a dependency of the root).
const grpc = createRequire(new URL("../services/gateway/package.json", import.meta.url))(
  "@grpc/grpc-js",
) as { Metadata: new () => { set(key: string, value: string): void } };

/** The OTLP body limit of this file's stack: small, so that a 413 costs little. */
const MAX_OTLP_BYTES = 256 * 1024;

let api: Api;
let db: pg.Pool;
let spaceId: string;
let verdict: string;

beforeAll(async () => {
  api = await startApi({
    env: { ARGUS_OTLP_MAX_BODY_BYTES: String(MAX_OTLP_BYTES) },
  });
  db = identityDb(api);
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  verdict = "verdict";
  const config = await api.req("POST", "/v2/annotation-configs", {
    body: {
      name: verdict,
      space_id: spaceId,
      annotation_config_type: "CATEGORICAL",
      values: [
        { label: "good", score: 1 },
        { label: "bad", score: 0 },
      ],
    },
  });
  expect(config.status).toBe(201);
});
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

const otlpHeaders = (key = api.stack.apiKey, space = spaceId) => ({
  authorization: key,
  "arize-space-id": space,
});

const exporters: Record<string, () => SpanExporter> = {
  "protobuf over HTTP": () =>
    new ProtoExporter({ url: `${api.stack.baseUrl}/v1/traces`, headers: otlpHeaders() }),
  "JSON over HTTP": () =>
    new JsonExporter({ url: `${api.stack.baseUrl}/v1/traces`, headers: otlpHeaders() }),
  gRPC: () => {
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(otlpHeaders())) metadata.set(k, v);
    return new GrpcExporter({
      url: `http://${api.stack.otlpGrpcAddress}`,
      metadata: metadata as never,
    });
  },
};

interface Recorded {
  projectId: string;
  traceId: string;
  ids: { agent: string; llm: string; tool: string };
  results: ExportResult[];
}

/**
 * One trace through `exporter` with the plain SDK: an AGENT root, an LLM child with an event,
 * a TOOL child that failed; 10 ms apart, a minute ago.
 */
async function record(exporter: SpanExporter, projectName: string): Promise<Recorded> {
  const results: ExportResult[] = [];
  const checked: SpanExporter = {
    export: (spans, done) =>
      exporter.export(spans, (r) => {
        results.push(r);
        done(r);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": "argus-e2e",
      "openinference.project.name": projectName,
    }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: checked })],
  });
  const tracer = provider.getTracer("argus-e2e");
  const t0 = Date.now() - 60_000;
  const agent = tracer.startSpan("agent", {
    kind: SpanKind.SERVER,
    startTime: new Date(t0),
    attributes: { "openinference.span.kind": "AGENT", "input.value": "what is the weather?" },
  });
  const parent = trace.setSpan(context.active(), agent);
  const llm = tracer.startSpan(
    "llm",
    {
      startTime: new Date(t0 + 10),
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o",
        "llm.token_count.total": 42,
      },
    },
    parent,
  );
  llm.addEvent("first token", { n: 1 }, new Date(t0 + 12));
  llm.end(new Date(t0 + 15));
  const tool = tracer.startSpan(
    "tool",
    { startTime: new Date(t0 + 20), attributes: { "openinference.span.kind": "TOOL" } },
    parent,
  );
  tool.setStatus({ code: SpanStatusCode.ERROR, message: "no network" });
  tool.end(new Date(t0 + 25));
  agent.end(new Date(t0 + 30));
  await provider.forceFlush();
  await provider.shutdown();
  return {
    projectId: await projectIdOf(api.stack, spaceId, projectName),
    traceId: agent.spanContext().traceId,
    ids: {
      agent: agent.spanContext().spanId,
      llm: llm.spanContext().spanId,
      tool: tool.spanContext().spanId,
    },
    results,
  };
}

/** An attribute of a listed span, whether the answer keeps dotted keys or nests them. */
function attribute(span: Json, key: string): unknown {
  const attributes = (span.attributes ?? {}) as Json;
  if (key in attributes) return attributes[key];
  return key.split(".").reduce<unknown>((v, k) => (v as Json | undefined)?.[k], attributes);
}

const listSpans = (body: Json, query = "") => api.req("POST", `/v2/spans${query}`, { body });

describe.each(Object.keys(exporters))("spans exported with %s", (transport) => {
  let r: Recorded;
  // One window for the file's requests: a cursor is bound to its query's window.
  let span: { start_time: string; end_time: string };
  const projectName = `otel-${transport.replace(/\W+/g, "-")}`;
  beforeAll(async () => {
    r = await record(exporters[transport]!(), projectName);
    span = recentWindow();
  });
  const window = () => ({ project_id: r.projectId, ...span });

  it("each export succeeded, into a project made on first use", async () => {
    expect(r.results.length).toBe(3);
    expect(r.results.map((x) => x.code)).toEqual([0, 0, 0].map(() => ExportResultCode.SUCCESS));
    const project = await api.req("GET", `/v2/projects/${r.projectId}`);
    expect(project.body).toMatchObject({ name: projectName, space_id: spaceId });
  });

  it("POST /v2/spans: ids, parents, kinds, attributes, status, events, newest first", async () => {
    const res = await listSpans(window());
    expect(res.status).toBe(200);
    const spans = res.body.spans as Json[];
    expect(spans.map((s) => s.name)).toEqual(["tool", "llm", "agent"]);
    const by = Object.fromEntries(spans.map((s) => [s.name, s]));
    for (const name of ["agent", "llm", "tool"] as const)
      expect(by[name]!.context).toEqual({ trace_id: r.traceId, span_id: r.ids[name] });
    expect(by.agent!.parent_id ?? null).toBeNull();
    expect(by.llm!.parent_id).toBe(r.ids.agent);
    expect(by.tool!.parent_id).toBe(r.ids.agent);
    expect(spans.map((s) => s.kind)).toEqual(["TOOL", "LLM", "AGENT"]);
    expect(by.tool).toMatchObject({ status_code: "ERROR", status_message: "no network" });
    expect(by.llm!.status_code).toBe("UNSET");
    expect(attribute(by.llm, "llm.model_name")).toBe("gpt-4o");
    expect(attribute(by.llm, "llm.token_count.total")).toBe(42);
    expect(attribute(by.agent, "input.value")).toBe("what is the weather?");
    expect(by.llm!.events).toEqual([
      { name: "first token", timestamp: expect.any(String), attributes: { n: 1 } },
    ]);
    expect(Date.parse(by.llm!.events[0].timestamp)).toBe(Date.parse(by.llm!.start_time) + 2);
    expect(Date.parse(by.llm!.end_time) - Date.parse(by.llm!.start_time)).toBe(5);
    expect(by.llm!.latency_ms).toBe(5);
    expect(res.body.pagination).toMatchObject({ has_more: false });
  });

  it("pages with limit and cursor; a filter narrows", async () => {
    const first = await listSpans(window(), "?limit=2");
    expect(first.body.spans.map((s: Json) => s.name)).toEqual(["tool", "llm"]);
    expect(first.body.pagination.has_more).toBe(true);
    const cursor = encodeURIComponent(first.body.pagination.next_cursor);
    const rest = await listSpans(window(), `?limit=2&cursor=${cursor}`);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    expect(rest.body.spans.map((s: Json) => s.name)).toEqual(["agent"]);
    expect(rest.body.pagination.has_more).toBe(false);
    // The cursor is bound to its query.
    expectProblem(
      await listSpans({ ...window(), filter: "name = 'llm'" }, `?limit=2&cursor=${cursor}`),
      400,
      "invalid-request",
    );

    const llm = await listSpans({ ...window(), filter: "span_kind = 'LLM'" });
    expect(llm.body.spans.map((s: Json) => s.context.span_id)).toEqual([r.ids.llm]);
    const failed = await listSpans({ ...window(), filter: "status_code = 'ERROR'" });
    expect(failed.body.spans.map((s: Json) => s.name)).toEqual(["tool"]);
    const model = await listSpans({ ...window(), filter: "attributes.llm.model_name = 'gpt-4o'" });
    expect(model.body.spans.map((s: Json) => s.name)).toEqual(["llm"]);
    expectProblem(await listSpans({ ...window(), filter: "name = = 'x'" }), 400, "invalid-request");
  });

  it("POST /v2/traces: the trace, anchored on its root, with its spans", async () => {
    const res = await api.req("POST", "/v2/traces", { body: window() });
    expect(res.status).toBe(200);
    expect(res.body.traces).toHaveLength(1);
    const t = res.body.traces[0];
    expect(t).toMatchObject({
      trace_id: r.traceId,
      root_span_id: r.ids.agent,
      spans_truncated: false,
    });
    expect(t.spans.map((s: Json) => s.context.span_id).sort()).toEqual(Object.values(r.ids).sort());
    const none = await api.req("POST", "/v2/traces", {
      body: { ...window(), filter: "name = 'nothing'" },
    });
    expect(none.body.traces).toEqual([]);
  });

  it("POST /v2/spans/annotate (SPAN): 202, and the span lists its annotation", async () => {
    const res = await api.req("POST", "/v2/spans/annotate", {
      body: {
        project_id: r.projectId,
        annotations: [{ record_id: r.ids.llm, values: [{ name: verdict, label: "good" }] }],
      },
    });
    expect(res.status).toBe(202);
    const listed = await listSpans({ ...window(), filter: `annotation.${verdict}.label = 'good'` });
    expect(listed.body.spans.map((s: Json) => s.context.span_id)).toEqual([r.ids.llm]);
    expect(listed.body.spans[0].annotations).toMatchObject([{ name: verdict, label: "good" }]);
    // A span the project does not have in the window: 404, as the public API documents; a name
    // that is no config of the space: 422. Nothing written either way.
    expectProblem(
      await api.req("POST", "/v2/spans/annotate", {
        body: {
          project_id: r.projectId,
          annotations: [
            { record_id: "00000000000000ff", values: [{ name: verdict, label: "good" }] },
          ],
        },
      }),
      404,
      "resource-not-found",
    );
    expectProblem(
      await api.req("POST", "/v2/spans/annotate", {
        body: {
          project_id: r.projectId,
          annotations: [
            { record_id: r.ids.llm, values: [{ name: "no-such-config", label: "good" }] },
          ],
        },
      }),
      422,
      "validation-error",
    );
  });

  it("DELETE /v2/spans: deleted and not deleted ids; the rest stays", async () => {
    const res = await api.req("DELETE", "/v2/spans", {
      body: { project_id: r.projectId, span_ids: [r.ids.tool, "00000000000000ff"] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      completed: true,
      deleted_span_ids: [r.ids.tool],
      not_deleted_span_ids: ["00000000000000ff"],
    });
    const left = await listSpans(window());
    expect(left.body.spans.map((s: Json) => s.name)).toEqual(["llm", "agent"]);
    const again = await api.req("DELETE", "/v2/spans", {
      body: { project_id: r.projectId, span_ids: [r.ids.tool] },
    });
    expect(again.body).toMatchObject({ deleted_span_ids: [], not_deleted_span_ids: [r.ids.tool] });
  });
});

describe("annotations at TRACE granularity", () => {
  it("a trace is annotated through its root span id, as the API documents", async () => {
    const sent = await sendSpans(api.stack, { spaceId, projectName: "trace-annotations" });
    const res = await api.req("POST", "/v2/spans/annotate", {
      body: {
        project_id: sent.projectId,
        granularity: "TRACE",
        annotations: [
          { record_id: sent.rootSpanIds[0], values: [{ name: verdict, label: "bad" }] },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const listed = await listSpans({ project_id: sent.projectId, ...recentWindow() });
    const root = (listed.body.spans as Json[]).find(
      (s) => s.context.span_id === sent.rootSpanIds[0],
    )!;
    expect(root.trace_annotations).toMatchObject([{ name: verdict, label: "bad" }]);
    // A span that is not a root names no trace root span in the window: 404.
    expectProblem(
      await api.req("POST", "/v2/spans/annotate", {
        body: {
          project_id: sent.projectId,
          granularity: "TRACE",
          annotations: [{ record_id: sent.spanIds[1], values: [{ name: verdict, label: "bad" }] }],
        },
      }),
      404,
      "resource-not-found",
    );
  });
});

// --- What the gateway refuses -------------------------------------------------------------

/** A google.rpc.Status in protobuf: code (field 1, varint) and message (field 2). */
function decodeStatus(bytes: Uint8Array): { code: number; message: string } {
  let i = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[i++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  const out = { code: 0, message: "" };
  while (i < bytes.length) {
    const tag = varint();
    if (tag === 0x08) out.code = varint();
    else if ((tag & 7) === 2) {
      const len = varint();
      if (tag >> 3 === 2) out.message = Buffer.from(bytes.subarray(i, i + len)).toString();
      i += len;
    } else throw new Error(`unexpected tag ${tag}`);
  }
  return out;
}

async function postOtlp(
  body: Uint8Array | string,
  o: { type?: string; headers?: Record<string, string>; path?: string } = {},
): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await fetch(`${api.stack.baseUrl}${o.path ?? "/v1/traces"}`, {
    method: "POST",
    headers: {
      "content-type": o.type ?? "application/x-protobuf",
      ...otlpHeaders(),
      ...o.headers,
    },
    body,
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

const json = (bytes: Uint8Array): Json => JSON.parse(Buffer.from(bytes).toString()) as Json;
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

/** An OTLP/JSON request of the given spans (hex ids), for `project`. */
function otlpJson(project: string, spans: Json[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: [{ key: "openinference.project.name", value: { stringValue: project } }],
        },
        scopeSpans: [{ scope: { name: "hand" }, spans }],
      },
    ],
  });
}
const handSpan = (o: Json = {}): Json => ({
  traceId: "5b8efff798038103d269b633813fc60c",
  spanId: "eee19b7ec3c1b174",
  name: "hand",
  kind: 1,
  startTimeUnixNano: nanos(Date.now() - 60_000),
  endTimeUnixNano: nanos(Date.now() - 59_000),
  ...o,
});

/** The project's spans, or null when the project does not exist. */
async function spansOf(projectName: string): Promise<string[] | null> {
  const found = await api.req(
    "GET",
    `/v2/projects?space_id=${encodeURIComponent(spaceId)}&name=${projectName}`,
  );
  const project = (found.body.projects as Json[]).find((p) => p.name === projectName);
  if (!project) return null;
  const res = await listSpans({ project_id: project.id, ...recentWindow() });
  return (res.body.spans as Json[]).map((s) => s.context.span_id);
}

describe("what OTLP ingestion refuses", () => {
  it("a body that is not protobuf: 400 with an OTLP Status; nothing stored", async () => {
    const res = await postOtlp(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(res.status).toBe(400);
    expect(res.type).toMatch(/^application\/x-protobuf/);
    const status = decodeStatus(res.bytes);
    expect(status.code).toBe(3); // INVALID_ARGUMENT
    expect(status.message).not.toBe("");

    const bad = await postOtlp("{not json", { type: "application/json" });
    expect(bad.status).toBe(400);
    expect(bad.type).toMatch(/^application\/json/);
    expect(json(bad.bytes)).toMatchObject({ code: 3, message: expect.any(String) });
  });

  it("a wrong key is 401; none is 401; an unknown media type is 415", async () => {
    const spans = otlpJson("refused", [handSpan()]);
    const wrong = await postOtlp(spans, {
      type: "application/json",
      headers: { authorization: "ak-not-a-key-0123456789abcdef0123456789" },
    });
    expect(wrong.status).toBe(401);
    expect(json(wrong.bytes)).toMatchObject({ code: 16 }); // UNAUTHENTICATED
    const bearerWrong = await postOtlp(spans, {
      type: "application/json",
      headers: { authorization: "Bearer ak-not-a-key-0123456789abcdef0123456789" },
    });
    expect(bearerWrong.status).toBe(401);
    const res = await fetch(`${api.stack.baseUrl}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "arize-space-id": spaceId },
      body: spans,
    });
    expect(res.status).toBe(401);
    expect((await postOtlp(spans, { type: "text/plain" })).status).toBe(415);
    expect(await spansOf("refused")).toBeNull();
  });

  it("api_key and space_id headers are read too; POST /v1 is where arize-otel posts", async () => {
    const res = await fetch(`${api.stack.baseUrl}/v1`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        api_key: api.stack.apiKey,
        space_id: spaceId,
      },
      body: otlpJson("legacy-headers", [handSpan()]),
    });
    expect(res.status).toBe(200);
    expect(await spansOf("legacy-headers")).toEqual(["eee19b7ec3c1b174"]);
  });

  it("a space the key cannot write to: hidden is 404, read-only is 403; nothing stored", async () => {
    const member = await newUser(api, db, "MEMBER");
    const orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
    const hidden = await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "private-traces", is_private: true },
    });
    expect(hidden.status).toBe(201);
    const spans = otlpJson("not-for-you", [handSpan()]);
    const notFound = await postOtlp(spans, {
      type: "application/json",
      headers: otlpHeaders(member.key, hidden.body.id),
    });
    expect(notFound.status).toBe(404);
    expect(json(notFound.bytes)).toMatchObject({ code: 5 }); // NOT_FOUND
    // The initial space is public: a MEMBER reads it (READ_ONLY) but may not write spans.
    const forbidden = await postOtlp(spans, {
      type: "application/json",
      headers: otlpHeaders(member.key, spaceId),
    });
    expect(forbidden.status).toBe(403);
    expect(json(forbidden.bytes)).toMatchObject({ code: 7 }); // PERMISSION_DENIED
    expect(await spansOf("not-for-you")).toBeNull();
    // Nor through gRPC.
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(otlpHeaders(member.key, spaceId))) metadata.set(k, v);
    const exporter = new GrpcExporter({
      url: `http://${api.stack.otlpGrpcAddress}`,
      metadata: metadata as never,
    });
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ "openinference.project.name": "not-for-you" }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    provider.getTracer("t").startSpan("x").end();
    await provider.shutdown();
    const result = await new Promise<ExportResult>((resolve) =>
      exporter.export(memory.getFinishedSpans(), resolve),
    );
    await exporter.shutdown();
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(String(result.error)).toMatch(/PERMISSION_DENIED/);
    expect(await spansOf("not-for-you")).toBeNull();
  });

  it("a batch over ARGUS_OTLP_MAX_BODY_BYTES is 413, plain or as a gzip bomb", async () => {
    const big = otlpJson("too-large", [handSpan({ name: "x".repeat(MAX_OTLP_BYTES) })]);
    const plain = await postOtlp(big, { type: "application/json" });
    expect(plain.status).toBe(413);
    expect(json(plain.bytes)).toMatchObject({ code: 8 }); // RESOURCE_EXHAUSTED
    const bomb = gzipSync(Buffer.from(big));
    expect(bomb.length).toBeLessThan(MAX_OTLP_BYTES);
    const inflated = await postOtlp(bomb, {
      type: "application/json",
      headers: { "content-encoding": "gzip" },
    });
    expect(inflated.status).toBe(413);
    // Under the limit, gzip is fine.
    const small = await postOtlp(gzipSync(Buffer.from(otlpJson("gzipped", [handSpan()]))), {
      type: "application/json",
      headers: { "content-encoding": "gzip" },
    });
    expect(small.status).toBe(200);
    expect(await spansOf("too-large")).toBeNull();
    expect(await spansOf("gzipped")).toEqual(["eee19b7ec3c1b174"]);
  });

  it("spans with missing or zero ids, or too old, are partial success; the rest is stored", async () => {
    const ok = handSpan({ spanId: "1111111111111111" });
    const res = await postOtlp(
      otlpJson("partial", [
        ok,
        handSpan({ spanId: "0000000000000000" }),
        handSpan({ traceId: "00000000000000000000000000000000", spanId: "2222222222222222" }),
        handSpan({ traceId: undefined, spanId: "3333333333333333" }),
        handSpan({
          spanId: "4444444444444444",
          startTimeUnixNano: nanos(Date.now() - 40 * 86_400_000),
          endTimeUnixNano: nanos(Date.now() - 40 * 86_400_000 + 1000),
        }),
      ]),
      { type: "application/json" },
    );
    expect(res.status).toBe(200);
    const body = json(res.bytes);
    expect(body.partialSuccess).toMatchObject({ rejectedSpans: "4" });
    expect(body.partialSuccess.errorMessage).toEqual(expect.any(String));
    expect(await spansOf("partial")).toEqual(["1111111111111111"]);

    // Every span rejected: still 200, nothing stored.
    const allBad = await postOtlp(otlpJson("all-rejected", [handSpan({ spanId: "" })]), {
      type: "application/json",
    });
    expect(allBad.status).toBe(200);
    expect(json(allBad.bytes).partialSuccess).toMatchObject({ rejectedSpans: "1" });
    expect((await spansOf("all-rejected")) ?? []).toEqual([]);

    // A re-sent span is stored once.
    const again = await postOtlp(otlpJson("partial", [ok]), { type: "application/json" });
    expect(again.status).toBe(200);
    expect(json(again.bytes)).toEqual({});
    expect(await spansOf("partial")).toEqual(["1111111111111111"]);
  });
});
