import { afterAll, beforeAll, expect, it } from "vitest";
import { SpanKind } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { MetricReader } from "@opentelemetry/sdk-metrics";
import { createLogger, initTelemetry, type Telemetry } from "@argus/platform";
import {
  createTestDatabase,
  freePort,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startIdentity, type RunningIdentity } from "@argus/identity";
import { loadGatewayConfig, startGateway, type RunningGateway } from "@argus/gateway";

const exporter = new InMemorySpanExporter();
// A reader that only collects on demand: the test pulls the histograms itself.
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}
const metricReader = new PullReader();
const apiKey = `ak-trace-${"t".repeat(40)}`;
let telemetry: Telemetry;
let db: TestDatabase;
let identity: RunningIdentity;
let gateway: RunningGateway;

beforeAll(async () => {
  telemetry = initTelemetry({
    service: "argus-test",
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    metricReaders: [metricReader],
  });
  const infra = testInfra();
  db = await createTestDatabase(infra);
  const grpcPort = await freePort();
  const keys = testCallKeys();
  const secrets = {
    ARGUS_CURSOR_SECRET: "c".repeat(32),
    ARGUS_API_KEY_PEPPER: "q".repeat(32),
  };
  const logger = createLogger({ service: "test", level: "warn" });
  identity = await startIdentity(
    {
      ...secrets,
      ...keys.env("identity"),
      DATABASE_URL: db.url,
      NATS_URL: infra.natsUrl,
      IDENTITY_GRPC_PORT: String(grpcPort),
      IDENTITY_PROBE_PORT: "0",
      ARGUS_INIT_API_KEY: apiKey,
      ARGUS_EVENTS_STREAM: uniqueName("TRACE"),
      ARGUS_SUBJECT_ROOT: uniqueName("trace"),
    },
    logger,
  );
  gateway = await startGateway(
    loadGatewayConfig({
      ...secrets,
      ...keys.env("gateway"),
      ARGUS_HTTP_PORT: "0",
      IDENTITY_GRPC_URL: `127.0.0.1:${grpcPort}`,
    }),
    logger,
  );
});

afterAll(async () => {
  await gateway?.stop();
  await identity?.stop();
  await db?.drop();
  await telemetry?.shutdown();
});

async function waitFor<T>(
  what: string,
  probe: () => T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("one request is one trace: gateway → identity (gRPC) → Postgres → NATS publish", async () => {
  const base = `http://127.0.0.1:${gateway.port}`;
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const orgs = (await (await fetch(`${base}/v2/organizations`, { headers })).json()) as {
    organizations: { id: string }[];
  };
  exporter.reset();

  const res = await fetch(`${base}/v2/spaces`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "traced", organization_id: orgs.organizations[0]!.id }),
  });
  expect(res.status).toBe(201);

  const root = await waitFor("the gateway's server span", () =>
    exporter
      .getFinishedSpans()
      .find((s) => s.kind === SpanKind.SERVER && s.name === "POST /v2/spaces"),
  );
  const traceId = root.spanContext().traceId;
  const inTrace = (): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const publish = await waitFor("the relay's publish span", () =>
    inTrace().find((s) => s.kind === SpanKind.PRODUCER && s.name.includes("SpaceCreated")),
  );

  const spans = inTrace();
  const rpc = "argus.identity.v1.IdentityService/CreateSpace";
  expect(spans.some((s) => s.kind === SpanKind.CLIENT && s.name === rpc)).toBe(true);
  const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === rpc);
  expect(server).toBeDefined();
  const sql = spans.filter((s) => s.attributes["db.system.name"] === "postgresql");
  expect(sql.length).toBeGreaterThan(0);
  // The command's Postgres work runs inside identity's server span, not beside it.
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const descendsFrom = (span: ReadableSpan, ancestor: ReadableSpan): boolean => {
    for (let p = span.parentSpanContext?.spanId; p; p = byId.get(p)?.parentSpanContext?.spanId) {
      if (p === ancestor.spanContext().spanId) return true;
    }
    return false;
  };
  expect(sql.some((s) => descendsFrom(s, server!))).toBe(true);
  expect(descendsFrom(server!, root)).toBe(true);
  expect(publish.spanContext().traceId).toBe(traceId);
});

it("requests and RPCs are measured as duration histograms", async () => {
  const { resourceMetrics, errors } = await metricReader.collect();
  expect(errors).toEqual([]);
  const names = new Set(
    resourceMetrics.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => m.descriptor.name)),
  );
  expect(names).toContain("http.server.request.duration");
  expect(names).toContain("rpc.server.duration");
  expect(names).toContain("rpc.client.duration");
});
