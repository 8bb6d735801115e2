/** The span kinds of OpenInference, as the public API names them. */
export const SPAN_KINDS = [
  "LLM",
  "CHAIN",
  "RETRIEVER",
  "EMBEDDING",
  "AGENT",
  "TOOL",
  "RERANKER",
  "GUARDRAIL",
  "EVALUATOR",
  "PROMPT",
  "DECISION",
  "UNKNOWN",
] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export type SpanStatusCode = "OK" | "ERROR" | "UNSET";

/** A JSON value as spans store it (attributes, event attributes). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

interface SpanEventRecord {
  name: string;
  /** Nanoseconds since the epoch. */
  timeUnixNano: bigint;
  attributes: Record<string, JsonValue>;
}

/**
 * One span as ingestion stores it, whatever the wire format was. Ids are lowercase hex (32
 * digits for traces, 16 for spans), never all zeros.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentId: string;
  name: string;
  /** From the `openinference.span.kind` attribute; UNKNOWN when absent or not a known kind. */
  kind: SpanKind;
  /** Nanoseconds since the epoch; end is never before start. */
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  statusCode: SpanStatusCode;
  statusMessage: string;
  /** The span's attributes by their OTLP keys (dotted keys stay flat: "llm.model_name"). */
  attributes: Record<string, JsonValue>;
  events: SpanEventRecord[];
}

/** The spans of one OTLP ResourceSpans, and the project its resource names. */
export interface ResourceBatch {
  /** `openinference.project.name`, else `arize.project.name`, else "" (the caller's default). */
  projectName: string;
  spans: SpanRecord[];
}

/** A decoded ExportTraceServiceRequest: what can be stored, and what was rejected and why. */
export interface DecodedExport {
  batches: ResourceBatch[];
  rejectedSpans: number;
  /** Empty when nothing was rejected; else a short, human-readable reason (OTLP error_message). */
  errorMessage: string;
}
