import { context, trace } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { Schema as ArizeSchema, Schema_Environment } from "@argus/proto/public/public";

/** Where spans go: a stack's gateway and a key that may write spans in the space. */
export interface SpanTarget {
  baseUrl: string;
  apiKey: string;
}

export interface SentSpans {
  /** Public id of the project the spans went to (created on first use). */
  projectId: string;
  /** One per trace, in the order sent. */
  traceIds: string[];
  /** Every span, root first within each trace, in the order sent. */
  spanIds: string[];
  /** The root span of each trace, in the order of `traceIds`. */
  rootSpanIds: string[];
  /** The OTLP/protobuf body sent, to send again (`postOtlp`) as an exporter's retry would. */
  body: Uint8Array;
}

export interface SendSpansOptions {
  spaceId: string;
  projectName: string;
  /** Traces to send (default 1). */
  traces?: number;
  /** Spans per trace, the root included, each child a child of the root (default 2). */
  spansPerTrace?: number;
  /** Start of the first span (default: a minute ago); each next span 1 ms later. */
  start?: Date;
  /** Another key than the target's. */
  key?: string;
}

/**
 * Spans made by a plain OpenTelemetry SDK, sent as one OTLP/HTTP protobuf request to
 * `POST /v1/traces` with the headers arize-otel sends; every span must be accepted (200 with
 * no partial success). The spans start in the last minutes, within the kept days.
 */
export async function sendSpans(target: SpanTarget, o: SendSpansOptions): Promise<SentSpans> {
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": "argus-e2e",
      "openinference.project.name": o.projectName,
    }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
  });
  const tracer = provider.getTracer("argus-e2e");
  let at = (o.start ?? new Date(Date.now() - 60_000)).getTime();
  const traceIds: string[] = [];
  const rootSpanIds: string[] = [];
  const spanIds: string[] = [];
  for (let t = 0; t < (o.traces ?? 1); t++) {
    const root = tracer.startSpan(`root-${t}`, {
      startTime: at++,
      attributes: { "openinference.span.kind": "CHAIN" },
    });
    traceIds.push(root.spanContext().traceId);
    rootSpanIds.push(root.spanContext().spanId);
    spanIds.push(root.spanContext().spanId);
    const parent = trace.setSpan(context.active(), root);
    for (let s = 1; s < (o.spansPerTrace ?? 2); s++) {
      const child = tracer.startSpan(
        `child-${t}-${s}`,
        { startTime: at++, attributes: { "openinference.span.kind": "LLM" } },
        parent,
      );
      spanIds.push(child.spanContext().spanId);
      child.end(at + 5);
    }
    root.end(at + 10);
  }
  await provider.forceFlush();
  const spans: ReadableSpan[] = memory.getFinishedSpans();
  await provider.shutdown();
  const body = ProtobufTraceSerializer.serializeRequest(spans)!;
  await postOtlp(target, o.spaceId, body, o.key);
  return {
    projectId: await projectIdOf(target, o.spaceId, o.projectName, o.key),
    traceIds,
    spanIds,
    rootSpanIds,
    body,
  };
}

/** One OTLP/protobuf body to `POST /v1/traces`; every span must be accepted. */
export async function postOtlp(
  target: SpanTarget,
  spaceId: string,
  body: Uint8Array,
  key?: string,
): Promise<void> {
  const res = await fetch(`${target.baseUrl}/v1/traces`, {
    method: "POST",
    headers: {
      "content-type": "application/x-protobuf",
      authorization: key ?? target.apiKey,
      "arize-space-id": spaceId,
    },
    body,
  });
  const answer = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200)
    throw new Error(`POST /v1/traces: ${res.status} ${Buffer.from(answer).toString()}`);
  const partial = ProtobufTraceSerializer.deserializeResponse(answer).partialSuccess;
  if (partial && (Number(partial.rejectedSpans ?? 0) > 0 || partial.errorMessage))
    throw new Error(`POST /v1/traces: partial success ${JSON.stringify(partial)}`);
}

/** The public id of the project named `name` in the space (exact name), through the REST API. */
export async function projectIdOf(
  target: SpanTarget,
  spaceId: string,
  name: string,
  key?: string,
): Promise<string> {
  const query = new URLSearchParams({ space_id: spaceId, name, limit: "100" });
  const res = await fetch(`${target.baseUrl}/v2/projects?${query}`, {
    headers: { authorization: `Bearer ${key ?? target.apiKey}` },
  });
  const body = (await res.json()) as { projects?: { id: string; name: string }[] };
  const project = body.projects?.find((p) => p.name === name);
  if (!project) throw new Error(`no project ${name} in ${spaceId}: ${JSON.stringify(body)}`);
  return project.id;
}

/**
 * The last hour up to now: the window annotate takes (its bounds may not be in the future), and
 * it holds every span `sendSpans` has sent by default.
 */
export function pastWindow(): { start_time: string; end_time: string } {
  const now = Date.now();
  return {
    start_time: new Date(now - 3_600_000).toISOString(),
    end_time: new Date(now).toISOString(),
  };
}

/** An ISO window around now that holds every span `sendSpans` sends by default. */
export function recentWindow(): { start_time: string; end_time: string } {
  return {
    start_time: new Date(Date.now() - 3_600_000).toISOString(),
    end_time: new Date(Date.now() + 3_600_000).toISOString(),
  };
}

/**
 * The `arize-schema` metadata (base64 public.Schema) by which the SDK's `POST /v1/pandas_arrow`
 * uploads name their project.
 */
export const arizeSchema = (project: string): string =>
  Buffer.from(
    ArizeSchema.encode(
      ArizeSchema.fromJSON({
        constants: { modelId: project, environment: Schema_Environment.TRACING },
      }),
    ).finish(),
  ).toString("base64");
