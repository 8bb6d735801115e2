import { randomBytes } from "node:crypto";
import { ExportTraceServiceRequest } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { KeyValue } from "@argus/proto/otlp/common/v1/common";
import type { Span } from "@argus/proto/otlp/trace/v1/trace";
import type { Api } from "./datasets.ts";
import { uuidOf } from "./datasets.ts";

/** Spans of a trace: a CHAIN root and LLM children, as OpenInference instrumentation sends. */
const TRACE_SPANS = 5;

const str = (key: string, value: string): KeyValue => ({
  key,
  keyStrindex: 0,
  value: { value: { $case: "stringValue", value } },
});
const int = (key: string, value: number): KeyValue => ({
  key,
  keyStrindex: 0,
  value: { value: { $case: "intValue", value: BigInt(value) } },
});

/** One span as the gateway receives it and as a COPY row writes it (bench/spansIngest.ts). */
export interface BenchSpan {
  traceId: string;
  spanId: string;
  parentId: string;
  name: string;
  kind: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number>;
}

/** `n` spans in traces of TRACE_SPANS, fresh ids, starting `agoMs` before now (1 µs apart). */
export function benchSpans(n: number, agoMs = 60_000): BenchSpan[] {
  const start = BigInt(Date.now() - agoMs) * 1_000_000n;
  const spans: BenchSpan[] = [];
  let traceId = "";
  let rootId = "";
  for (let i = 0; i < n; i++) {
    const root = i % TRACE_SPANS === 0;
    const spanId = randomBytes(8).toString("hex");
    if (root) {
      traceId = randomBytes(16).toString("hex");
      rootId = spanId;
    }
    const kind = root ? "CHAIN" : "LLM";
    spans.push({
      traceId,
      spanId,
      parentId: root ? "" : rootId,
      name: root ? "agent.run" : `llm.call ${i % TRACE_SPANS}`,
      kind,
      startNs: start + BigInt(i) * 1000n,
      endNs: start + BigInt(i) * 1000n + 250_000_000n,
      attributes: {
        "openinference.span.kind": kind,
        "input.value": `What is the refund policy for order ${i}? Please answer in two sentences.`,
        "output.value": `Orders can be refunded within 30 days of delivery (order ${i}). Shipping is not refunded.`,
        "llm.model_name": "gpt-4o-mini",
        "llm.token_count.prompt": 120 + (i % 50),
        "llm.token_count.completion": 40 + (i % 20),
        "session.id": `session-${i % 1000}`,
        "user.id": `user-${i % 97}`,
      },
    });
  }
  return spans;
}

/** The spans as one OTLP/protobuf ExportTraceServiceRequest of one resource naming `project`. */
export function otlpBody(project: string, spans: readonly BenchSpan[]): Uint8Array {
  const otlp: Span[] = spans.map((s) => ({
    traceId: Buffer.from(s.traceId, "hex"),
    spanId: Buffer.from(s.spanId, "hex"),
    traceState: "",
    parentSpanId: s.parentId ? Buffer.from(s.parentId, "hex") : Buffer.alloc(0),
    flags: 0,
    name: s.name,
    kind: 1,
    startTimeUnixNano: s.startNs,
    endTimeUnixNano: s.endNs,
    attributes: Object.entries(s.attributes).map(([k, v]) =>
      typeof v === "number" ? int(k, v) : str(k, v),
    ),
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
  }));
  return ExportTraceServiceRequest.encode({
    resourceSpans: [
      {
        resource: {
          attributes: [str("openinference.project.name", project)],
          droppedAttributesCount: 0,
          entityRefs: [],
        },
        scopeSpans: [{ spans: otlp, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  }).finish();
}

/** POST /v1/traces; throws unless every span was taken. */
export async function sendOtlp(api: Api, spaceId: string, body: Uint8Array): Promise<void> {
  const res = await fetch(`${api.stack.baseUrl}/v1/traces`, {
    method: "POST",
    headers: {
      authorization: api.stack.apiKey,
      "arize-space-id": spaceId,
      "content-type": "application/x-protobuf",
    },
    body,
  });
  const answer = Buffer.from(await res.arrayBuffer());
  // An ExportTraceServiceResponse without partial_success is empty.
  if (res.status !== 200 || answer.length > 0)
    throw new Error(`POST /v1/traces: ${res.status} ${answer.toString("utf8").slice(0, 300)}`);
}

/** The project (public id and uuid) ingestion created for `name` in the space. */
export async function projectNamed(
  api: Api,
  spaceId: string,
  name: string,
): Promise<{ id: string; uuid: string }> {
  const { projects } = await api.call<{ projects: { id: string; name: string }[] }>(
    "GET",
    `/v2/projects?space_id=${encodeURIComponent(spaceId)}&name=${encodeURIComponent(name)}`,
    200,
  );
  const found = projects.find((p) => p.name === name);
  if (!found) throw new Error(`no project named ${name}`);
  return { id: found.id, uuid: uuidOf("Project", found.id) };
}
