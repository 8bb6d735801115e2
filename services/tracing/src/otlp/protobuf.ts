import { ExportTraceServiceRequest } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { Span } from "@argus/proto/otlp/trace/v1/trace";
import { OtlpDecodeError, describeError } from "./errors.ts";
import type { WireResourceSpans, WireSpan } from "./wire.ts";

/** Reads an OTLP/protobuf ExportTraceServiceRequest. */
export function readProtobufExport(payload: Uint8Array): WireResourceSpans[] {
  let request: ExportTraceServiceRequest;
  try {
    request = ExportTraceServiceRequest.decode(payload);
  } catch (e) {
    throw new OtlpDecodeError(
      `the body is not a valid OTLP ExportTraceServiceRequest (protobuf): ${describeError(e)}`,
    );
  }
  return request.resourceSpans.map((rs) => ({
    resourceAttributes: rs.resource?.attributes ?? [],
    spans: rs.scopeSpans.flatMap((ss) => ss.spans.map(wireSpan)),
  }));
}

function wireSpan(span: Span): WireSpan {
  return {
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentSpanId: hex(span.parentSpanId),
    name: span.name,
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    statusCode: span.status?.code ?? 0,
    statusMessage: span.status?.message ?? "",
    attributes: span.attributes,
    events: span.events.map((e) => ({
      name: e.name,
      timeUnixNano: e.timeUnixNano,
      attributes: e.attributes,
    })),
  };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
