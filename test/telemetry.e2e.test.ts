import { createServer, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { startApi, type Api } from "./support.ts";

// Each process's OpenTelemetry SDK (packages/platform/src/telemetry.ts), configured by the
// standard OTEL_* variables alone, exports to a collector this test runs on loopback.

interface OtlpSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

// OTLP's SpanKind numbers.
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}
type WireSpan = Omit<OtlpSpan, "service" | "attributes"> & { attributes?: KeyValue[] };
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: WireSpan[];
    }[];
  }[];
}

interface MetricsRequest {
  resourceMetrics?: {
    resource?: { attributes?: KeyValue[] };
    scopeMetrics?: { metrics?: { name: string }[] }[];
  }[];
}

const attrs = (kvs: KeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(kvs.map((kv) => [kv.key, Object.values(kv.value)[0]]));

const spans: OtlpSpan[] = [];
/** The metric names each service exported. */
const metricNames = new Map<string, Set<string>>();
let collector: Server;
let api: Api;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const body = () =>
        JSON.parse(
          (req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8"),
        ) as unknown;
      if (req.url === "/v1/metrics") {
        const parsed = body() as MetricsRequest;
        for (const rm of parsed.resourceMetrics ?? []) {
          const service = String(attrs(rm.resource?.attributes)["service.name"]);
          const names = metricNames.get(service) ?? new Set<string>();
          metricNames.set(service, names);
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) names.add(m.name);
        }
      }
      if (req.url === "/v1/traces") {
        const parsed = body() as ExportRequest;
        for (const rs of parsed.resourceSpans ?? []) {
          const service = String(attrs(rs.resource?.attributes)["service.name"]);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ ...s, service, attributes: attrs(s.attributes) });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await listenLocal(collector);
  api = await startApi({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      OTEL_LOGS_EXPORTER: "none",
    },
  });
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await new Promise((r) => collector?.close(r));
});

async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    const v = probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${what}; spans: ${spans.map((s) => `${s.service}:${s.name}`).join(", ")}`);
}

it("one trace runs from the gateway's request through gRPC to Postgres and across NATS to a consumer", async () => {
  const traceId = randomBytes(16).toString("hex");
  const callerSpan = randomBytes(8).toString("hex");
  const orgs = await api.ok("GET", "/v2/organizations");
  const res = await api.req("POST", "/v2/spaces", {
    body: { name: "traced", organization_id: orgs.organizations[0].id },
    headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
  });
  expect(res.status).toBe(201);

  const inTrace = () => spans.filter((s) => s.traceId === traceId);
  const find = (what: string, p: (s: OtlpSpan) => boolean) =>
    waitFor(what, () => inTrace().find(p));
  const rpc = "argus.identity.v1.IdentityService/CreateSpace";

  // The gateway's SERVER span, named after the route, continues the caller's trace.
  const root = await find(
    "gateway server span",
    (s) => s.service === "gateway" && s.kind === SERVER,
  );
  expect(root.name).toBe("POST /v2/spaces");
  expect(root.parentSpanId).toBe(callerSpan);
  expect(root.attributes["http.route"]).toBe("/v2/spaces");

  const client = await find(
    "gateway's gRPC client span",
    (s) => s.service === "gateway" && s.kind === CLIENT && s.name.endsWith(rpc),
  );
  const server = await find(
    "identity's gRPC server span",
    (s) => s.service === "identity" && s.kind === SERVER && s.name.endsWith(rpc),
  );
  const byId = () => new Map(inTrace().map((s) => [s.spanId, s]));
  const descends = (span: OtlpSpan, ancestor: OtlpSpan): boolean => {
    const ids = byId();
    for (let p: string | undefined = span.parentSpanId; p; p = ids.get(p)?.parentSpanId)
      if (p === ancestor.spanId) return true;
    return false;
  };
  expect(descends(client, root)).toBe(true);
  expect(server.parentSpanId).toBe(client.spanId);

  // The command's SQL runs inside identity's server span: the pg instrumentation's spans, with
  // the parameterised text only.
  const sql = await find(
    "a Postgres span under identity's server span",
    (s) =>
      s.service === "identity" &&
      s.attributes["db.system.name"] === "postgresql" &&
      descends(s, server),
  );
  expect(String(sql.attributes["db.query.text"] ?? "")).not.toContain("traced");

  // The event crosses NATS in the message headers: the audit consumer's span is in the trace.
  const consumer = await find(
    "a NATS consumer's span",
    (s) => s.kind === CONSUMER && s.name.includes("SpaceCreated"),
  );
  expect(consumer.attributes["messaging.system"]).toBe("nats");

  // Probes are not traced.
  expect(spans.some((s) => String(s.attributes["url.path"] ?? "").endsWith("/readyz"))).toBe(false);

  // The access log line (pino JSON) carries the request's trace and span ids.
  const line = api.stack.processes
    .gateway!.output()
    .split("\n")
    .map((l) => l.replace(/^\[gateway\] /, ""))
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === "request" && l.route === "/v2/spaces" && l.method === "POST");
  expect(line).toMatchObject({ trace_id: traceId, level: "info", service: "gateway" });
  expect(line?.span_id).toMatch(/^[0-9a-f]{16}$/);
});

it("requests and RPCs are measured as duration histograms", async () => {
  // The request of the test above has been served; each process exports every 500 ms.
  const has = (service: string, name: string) => metricNames.get(service)?.has(name) ?? false;
  await waitFor("the duration histograms", () =>
    has("gateway", "http.server.request.duration") &&
    has("gateway", "rpc.client.duration") &&
    has("identity", "rpc.server.duration")
      ? true
      : undefined,
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; metrics: ${JSON.stringify(Object.fromEntries([...metricNames].map(([k, v]) => [k, [...v]])))}`,
    );
  });
});
