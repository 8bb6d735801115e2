import { SpanKind, trace } from "@opentelemetry/api";
import { encodeId, initTelemetry, type Telemetry } from "@argus/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./startGateway.ts";

interface Ended {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
}

const ended: Ended[] = [];
let telemetry: Telemetry;
let gw: TestGateway;

beforeAll(async () => {
  telemetry = initTelemetry({
    service: "gateway-test",
    spanProcessors: [
      {
        onStart: () => undefined,
        onEnd: (span) =>
          void ended.push({
            name: span.name,
            kind: span.kind,
            traceId: span.spanContext().traceId,
            spanId: span.spanContext().spanId,
            parentSpanId: span.parentSpanContext?.spanId,
          }),
        forceFlush: async () => undefined,
        shutdown: async () => undefined,
      },
    ],
  });
  const noop = async () => ({ status: 200, body: {} });
  gw = await startGateway({
    list_spaces: noop,
    create_space: noop,
    // Stands in for callUnary: any span started by a handler must be a child of the server span.
    get_space: async () => {
      trace.getTracer("test").startSpan("downstream").end();
      return { status: 200, body: {} };
    },
  });
});

afterAll(async () => {
  await gw.close();
  await telemetry.shutdown();
});

async function waitFor(name: string): Promise<Ended> {
  for (let i = 0; i < 100; i++) {
    const span = ended.find((s) => s.name === name);
    if (span) return span;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no span ${name}; saw ${ended.map((s) => s.name).join(", ")}`);
}

it("continues the caller's trace with a server span named after the route, parent of downstream spans", async () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const id = encodeId("Space", "0192f4a0-0000-7000-8000-000000000000");
  const res = await fetch(`${gw.url}/v2/spaces/${id}`, {
    headers: { authorization: "Bearer ak-alice", traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
  });
  expect(res.status).toBe(200);
  const server = await waitFor("GET /v2/spaces/{space_id}");
  expect(server).toMatchObject({
    kind: SpanKind.SERVER,
    traceId,
    parentSpanId: "00f067aa0ba902b7",
  });
  const downstream = await waitFor("downstream");
  expect(downstream).toMatchObject({ traceId, parentSpanId: server.spanId });
});

it("names unmatched requests by method only", async () => {
  await fetch(`${gw.url}/v2/unknown`);
  expect((await waitFor("GET")).kind).toBe(SpanKind.SERVER);
});
