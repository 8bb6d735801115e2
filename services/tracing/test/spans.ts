import { randomBytes } from "node:crypto";
import { SpanKind, SpanStatusCode, context, trace, type Attributes } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { Principal } from "@argus/platform";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import {
  Encoding,
  TracingServiceService as T,
  type ExportResponse,
} from "@argus/proto/tracing/v1/tracing";
import { uniqueName } from "@argus/testkit";
import { expect } from "vitest";
import type { TracingUnderTest } from "./tracingUnderTest.ts";

export type Tracer = ReturnType<TracerProvider["getTracer"]>;

/** Spans a real SDK tracer recorded, under one resource naming `project`. */
export async function record(
  project: string,
  fn: (tracer: Tracer) => void,
): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const resource: Attributes = { "openinference.project.name": project };
  const provider = new TracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  fn(provider.getTracer("argus-int"));
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

/** A root CHAIN span with `children` LLM children, started `agoMs` before now. */
export const traceOf =
  (children: number, agoMs = 60_000, attrs: Attributes = {}) =>
  (tracer: Tracer) => {
    const start = Date.now() - agoMs;
    const root = tracer.startSpan("root", {
      kind: SpanKind.SERVER,
      startTime: start,
      attributes: { "openinference.span.kind": "CHAIN", "input.value": "q", ...attrs },
    });
    const ctx = trace.setSpan(context.active(), root);
    for (let i = 0; i < children; i++) {
      const child = tracer.startSpan(
        `llm-${i}`,
        {
          startTime: start + 10 + i,
          attributes: { "openinference.span.kind": "LLM", "llm.model_name": `m${i % 2}` },
        },
        ctx,
      );
      if (i === 0) child.setStatus({ code: SpanStatusCode.ERROR, message: "boom" });
      child.end(start + 20 + i);
    }
    root.end(start + 100);
  };

export interface ExportOptions {
  spaceId?: string;
  as?: Principal;
  /** The SDK's spans.log: every span stored, or none. */
  allOrNothing?: boolean;
}

/** SDK spans through Export, as the gateway forwards them. */
export function exportSpans(
  t: TracingUnderTest,
  spans: ReadableSpan[],
  encoding: "protobuf" | "json" = "protobuf",
  o: ExportOptions = {},
): Promise<ExportResponse> {
  const serializer = encoding === "protobuf" ? ProtobufTraceSerializer : JsonTraceSerializer;
  return t.call(
    T.export,
    {
      payload: Buffer.from(serializer.serializeRequest(spans)!),
      encoding: encoding === "protobuf" ? Encoding.ENCODING_PROTOBUF : Encoding.ENCODING_JSON,
      spaceId: o.spaceId ?? t.spaceId,
    },
    o.as,
  );
}

/** A span written field by field (ids, times, nested attribute values the SDK cannot write). */
export interface RawSpan {
  traceId: string;
  spanId: string;
  parentId?: string;
  name?: string;
  /** Milliseconds since the epoch (default: a minute ago); `startNs` wins when given. */
  startMs?: number;
  startNs?: bigint;
  durationMs?: number;
  kind?: string;
  status?: { code: 0 | 1 | 2; message?: string };
  /** Any JSON: objects become OTLP key-value lists, arrays array values. */
  attributes?: Record<string, unknown>;
}

export const newTraceId = () => randomBytes(16).toString("hex");
export const newSpanId = () => randomBytes(8).toString("hex");

/** `n` spans of one new trace named s0, s1, …, a millisecond apart from `startMs` (a minute ago). */
export const traceSpans = (
  n: number,
  o: { startMs?: number; traceId?: string } = {},
): RawSpan[] => {
  const traceId = o.traceId ?? newTraceId();
  const start = o.startMs ?? Date.now() - 60_000;
  return Array.from({ length: n }, (_, i) => ({
    traceId,
    spanId: newSpanId(),
    name: `s${i}`,
    startMs: start + i,
  }));
};

/** An OTLP JSON AnyValue of a JSON value. */
function anyValue(v: unknown): Record<string, unknown> {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "number")
    return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValue) } };
  if (v !== null && typeof v === "object") return { kvlistValue: { values: keyValues(v) } };
  return {};
}

const keyValues = (o: object) =>
  Object.entries(o).map(([key, value]) => ({ key, value: anyValue(value) }));

/** An ExportTraceServiceRequest in OTLP JSON, a resource for each project, in the order given. */
function otlpJson(resources: readonly (readonly [string, readonly RawSpan[]])[]): Buffer {
  const body = {
    resourceSpans: resources.map(([project, spans]) => ({
      resource: { attributes: keyValues({ "openinference.project.name": project }) },
      scopeSpans: [
        {
          scope: { name: "argus-int" },
          spans: spans.map((s) => {
            const start = s.startNs ?? BigInt(s.startMs ?? Date.now() - 60_000) * 1_000_000n;
            const end = start + BigInt(Math.round((s.durationMs ?? 10) * 1_000_000));
            return {
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentId ?? "",
              name: s.name ?? "span",
              kind: 1,
              startTimeUnixNano: start.toString(),
              endTimeUnixNano: end.toString(),
              attributes: keyValues({
                "openinference.span.kind": s.kind ?? "LLM",
                ...s.attributes,
              }),
              status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
            };
          }),
        },
      ],
    })),
  };
  return Buffer.from(JSON.stringify(body));
}

/** Raw spans through Export (OTLP JSON). */
export function exportRaw(
  t: TracingUnderTest,
  project: string,
  spans: readonly RawSpan[],
  o: ExportOptions = {},
): Promise<ExportResponse> {
  return exportResources(t, [[project, spans]], o);
}

/** Raw spans of several projects in one request, a resource each, in the order given. */
export function exportResources(
  t: TracingUnderTest,
  resources: readonly (readonly [string, readonly RawSpan[]])[],
  o: ExportOptions = {},
): Promise<ExportResponse> {
  return t.call(
    T.export,
    {
      payload: otlpJson(resources),
      encoding: Encoding.ENCODING_JSON,
      spaceId: o.spaceId ?? t.spaceId,
      ...(o.allOrNothing ? { allOrNothing: true } : {}),
    },
    o.as,
  );
}

/** The catalog's project of that name, which ingestion created. */
export async function projectIdOf(
  t: TracingUnderTest,
  name: string,
  spaceId = t.spaceId,
): Promise<string> {
  const { projects } = await t.callOn(t.catalog, ProjectServiceService.listProjects, {
    page: { limit: 10, after: "" },
    spaceId,
    spaceName: "",
    name,
  });
  const found = projects.find((p) => p.name === name);
  if (!found) throw new Error(`no project ${name}`);
  return found.id;
}

/**
 * Exports `spans` to a new project (named after `prefix`) in `o.spaceId` (default: the fixture's
 * space), every one of them accepted, and answers the project's id.
 */
export async function projectWith(
  t: TracingUnderTest,
  spans: readonly RawSpan[],
  o: ExportOptions = {},
  prefix = "proj",
): Promise<string> {
  const name = uniqueName(prefix);
  expect((await exportRaw(t, name, spans, o)).rejectedSpans).toBe(0n);
  return projectIdOf(t, name, o.spaceId);
}

/** A listed span in the public shape. */
export type Span = Record<string, unknown> & {
  name: string;
  context: { trace_id: string; span_id: string };
  attributes: Record<string, unknown>;
  annotations: Record<string, unknown>[];
  trace_annotations: Record<string, unknown>[];
};

export interface ListOptions {
  startTime?: string;
  endTime?: string;
  filter?: string;
  includedColumns?: string[];
  excludedColumns?: string[];
  truncateStringLength?: number;
  limit?: number;
  after?: string;
}

/** One page of ListSpans, parsed. */
export async function spansPage(
  t: TracingUnderTest,
  projectId: string,
  o: ListOptions = {},
  as?: Principal,
): Promise<{ spans: Span[]; nextAfter: string }> {
  const res = await t.call(
    T.listSpans,
    {
      projectId,
      startTime: o.startTime ?? "",
      endTime: o.endTime ?? "",
      filter: o.filter ?? "",
      includedColumns: o.includedColumns ?? [],
      excludedColumns: o.excludedColumns ?? [],
      truncateStringLength: o.truncateStringLength ?? 0,
      page: { limit: o.limit ?? 500, after: o.after ?? "" },
    },
    as,
  );
  return {
    spans: res.spans.map((s) => JSON.parse(s) as Span),
    nextAfter: res.page?.nextAfter ?? "",
  };
}

/** The first page (up to 500) of ListSpans, parsed. */
export const listSpans = async (
  t: TracingUnderTest,
  projectId: string,
  o: ListOptions = {},
  as?: Principal,
): Promise<Span[]> => (await spansPage(t, projectId, o, as)).spans;

/** A listed trace in the public shape. */
export interface Trace {
  trace_id: string;
  root_span_id: string;
  start_time: string;
  end_time: string;
  spans_truncated: boolean;
  spans: Span[];
}

/** One page of ListTraces, parsed. */
export async function listTraces(
  t: TracingUnderTest,
  projectId: string,
  o: Pick<ListOptions, "startTime" | "endTime" | "filter" | "limit" | "after"> = {},
  as?: Principal,
): Promise<{ traces: Trace[]; nextAfter: string }> {
  const res = await t.call(
    T.listTraces,
    {
      projectId,
      startTime: o.startTime ?? "",
      endTime: o.endTime ?? "",
      filter: o.filter ?? "",
      page: { limit: o.limit ?? 50, after: o.after ?? "" },
    },
    as,
  );
  return {
    traces: res.traces.map((s) => JSON.parse(s) as Trace),
    nextAfter: res.page?.nextAfter ?? "",
  };
}

/** Polls `probe` until it holds (at most `ms`); the last answer otherwise. */
export async function eventually<T>(
  probe: () => Promise<T>,
  holds: (v: T) => boolean,
  ms = 10_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (holds(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
