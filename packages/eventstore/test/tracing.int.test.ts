import { SpanKind, context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { jetstream } from "@nats-io/jetstream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runConsumer, tracedQuery } from "../src/index.ts";
import {
  createSchema,
  eventually,
  liveStream,
  quietLogger,
  schemaName,
  fileEnv,
} from "./support.ts";

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});
// After the global tracing set-up: its hooks close the environment before that is undone.
const file = fileEnv();

it("carries one trace from the request through the append, the publish and the consumer", async () => {
  const schema = schemaName("traced");
  await createSchema(file.env.pool, schema);
  const delivery = { maxDeliver: 3, ackWaitMs: 5000 };
  const { stream, durable, store } = await liveStream(file, schema, delivery);
  const handled: { traceId: string; spanId: string }[] = [];
  file.started(
    await runConsumer({
      nc: file.nc,
      pool: file.env.pool,
      schema,
      stream,
      durable,
      concurrency: 1,
      maxDeliver: 3,
      logger: quietLogger,
      handler: async (tx, event) => {
        await tracedQuery(tx, "project", "SELECT $1::uuid", [event.eventId]);
        const active = trace.getActiveSpan()?.spanContext();
        handled.push({ traceId: active?.traceId ?? "none", spanId: active?.spanId ?? "none" });
      },
    }),
  );

  const request = trace.getTracer("test").startSpan("POST /v2/tags", { kind: SpanKind.SERVER });
  const traceId = request.spanContext().traceId;
  const [event] = await context.with(trace.setSpan(context.active(), request), () =>
    store.transaction((tx) =>
      tx.append("tag-1", 0, [{ type: "TagCreated", data: {}, metadata: { actor: "user:1" } }]),
    ),
  );
  request.end();

  // The request's context is stored with the event, next to the caller's metadata.
  expect(event!.metadata).toMatchObject({
    actor: "user:1",
    traceparent: expect.stringContaining(traceId),
  });
  const read = await store.readStream("tag-1");
  expect(read[0]!.metadata.traceparent).toBe(event!.metadata.traceparent);

  await eventually("the consumer", async () => (handled.length > 0 ? true : undefined));
  expect(handled.map((h) => h.traceId)).toEqual([traceId]);
  await eventually("the consumer span", async () =>
    exporter.getFinishedSpans().some((s) => s.kind === SpanKind.CONSUMER) ? true : undefined,
  );

  const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const byKind = (kind: SpanKind) => spans.filter((s) => s.kind === kind);
  const producer = byKind(SpanKind.PRODUCER)[0]!;
  const consumer = byKind(SpanKind.CONSUMER)[0]!;
  // SQL statements are spans of the pg instrumentation, which runs with the SDK in a process
  // (test/telemetry.e2e.test.ts checks them there); none is made here.
  expect(spans.some((s) => s.name === "appendToStream")).toBe(false);
  // The stored context is the store's transaction span, a child of the request.
  const transaction = spans.find((s) => s.name === "eventstore.transaction")!;
  expect(transaction.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  expect(producer.parentSpanContext?.spanId).toBe(transaction.spanContext().spanId);
  expect(producer.attributes).toMatchObject({
    "messaging.system": "nats",
    "messaging.message.id": event!.eventId,
  });
  expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
  // The handler (and its statements) runs inside the consumer's span.
  expect(handled[0]!.spanId).toBe(consumer.spanContext().spanId);

  // The message itself carries the producer's context.
  const msg = await (await jetstream(file.nc).consumers.get(stream)).next();
  expect(msg?.headers?.get("traceparent")).toContain(producer.spanContext().spanId);
});
