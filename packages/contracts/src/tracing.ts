/**
 * The tracing service's events (`<root>.tracing.project_spans.<Type>`). Spans themselves are
 * data, not events: ingestion writes them set-based and appends one small event per project
 * and request, which says that the project received spans in a window (what online tasks and
 * other readers need), never the spans. Annotations and deletes are events like every write.
 */
import type { AnnotationWrite } from "./dataset.ts";

export interface SpansReceived {
  type: "SpansReceived";
  data: {
    project_id: string;
    space_id: string;
    /** Spans newly stored (re-sent duplicates are not counted). */
    span_count: number;
    /** The earliest and latest start time among them (RFC 3339). */
    start_time: string;
    end_time: string;
    received_at: string;
  };
}

/** Annotations upserted on spans (SPAN) or traces (TRACE) of the project, by config name. */
export interface SpansAnnotated {
  type: "SpansAnnotated";
  data: {
    project_id: string;
    space_id: string;
    granularity: "SPAN" | "TRACE";
    annotator_id: string;
    /** The annotator's e-mail when it annotated ("" for a service account). */
    annotator_email: string;
    annotations: AnnotationWrite[];
    at: string;
  };
}

export interface SpansDeleted {
  type: "SpansDeleted";
  data: {
    project_id: string;
    space_id: string;
    span_ids: string[];
    deleted_at: string;
  };
}

/**
 * Evaluations a task's run (or a client: the SDK's spans.update_evaluations) wrote on spans of
 * the project, by span and evaluation name.
 */
export interface SpansEvaluated {
  type: "SpansEvaluated";
  data: {
    project_id: string;
    space_id: string;
    /** The task whose run wrote them; "" when a client did. */
    task_id: string;
    evaluations: {
      span_id: string;
      name: string;
      label: string | null;
      score: number | null;
      explanation: string | null;
    }[];
    at: string;
  };
}

/**
 * The `metadata` attribute of these spans was patched (the SDK's spans.update_metadata): like
 * ingestion and deletes, the spans are written directly; the event says which and when.
 */
export interface SpansMetadataPatched {
  type: "SpansMetadataPatched";
  data: {
    project_id: string;
    space_id: string;
    span_ids: string[];
    at: string;
  };
}

export type TracingEvent =
  SpansReceived | SpansAnnotated | SpansDeleted | SpansEvaluated | SpansMetadataPatched;
