import { ExportTraceServiceResponse } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { ExportResponse } from "@argus/proto/tracing/v1/tracing";

/** The two OTLP/HTTP body encodings; a response is always in the request's. */
export type OtlpEncoding = "protobuf" | "json";

export const MEDIA_TYPES: Readonly<Record<OtlpEncoding, string>> = {
  protobuf: "application/x-protobuf",
  json: "application/json",
};

/**
 * The encoding a Content-Type names, parameters (`; charset=utf-8`) aside; undefined for any
 * other type, absent included.
 */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = contentType?.split(";", 1)[0]!.trim().toLowerCase();
  if (type === MEDIA_TYPES.protobuf) return "protobuf";
  if (type === MEDIA_TYPES.json) return "json";
  return undefined;
}

/** The tracing service's verdict as OTLP's ExportTraceServiceResponse message. */
export function toTraceServiceResponse(res: ExportResponse): ExportTraceServiceResponse {
  // OTLP: partial_success unset means "everything was accepted", so it is sent only when the
  // service has something to say (rejections, or a warning with none).
  return res.rejectedSpans === 0n && res.errorMessage === ""
    ? {}
    : {
        partialSuccess: { rejectedSpans: res.rejectedSpans, errorMessage: res.errorMessage },
      };
}

/** The 200 body of OTLP/HTTP, in the request's encoding. */
export function encodeExportResponse(res: ExportResponse, encoding: OtlpEncoding): Buffer {
  const message = toTraceServiceResponse(res);
  if (encoding === "protobuf")
    return Buffer.from(ExportTraceServiceResponse.encode(message).finish());
  // Proto3's JSON mapping: int64 as a decimal string, fields at their defaults omitted.
  const partial = message.partialSuccess;
  const json = partial
    ? {
        partialSuccess: {
          ...(partial.rejectedSpans !== 0n ? { rejectedSpans: String(partial.rejectedSpans) } : {}),
          ...(partial.errorMessage ? { errorMessage: partial.errorMessage } : {}),
        },
      }
    : {};
  return Buffer.from(JSON.stringify(json));
}

// --- google.rpc.Status, hand-encoded: the gateway has no generated code for google/rpc. ---

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** A length-delimited field (wire type 2). */
const lengthDelimited = (field: number, bytes: Uint8Array): Buffer =>
  Buffer.concat([Buffer.from([...varint((field << 3) | 2), ...varint(bytes.length)]), bytes]);

/** A varint field (wire type 0); omitted at its default, as proto3 does. */
const varintField = (field: number, value: number | bigint): Buffer =>
  BigInt(value) === 0n ? Buffer.alloc(0) : Buffer.from([...varint(field << 3), ...varint(value)]);

/** google.rpc.RetryInfo { google.protobuf.Duration retry_delay = 1 { int64 seconds = 1 } }. */
export function encodeRetryInfo(retryAfterSeconds: number): Buffer {
  return lengthDelimited(1, varintField(1, Math.max(0, Math.ceil(retryAfterSeconds))));
}

const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3 }: the
 * error body of OTLP/HTTP, and (with a RetryInfo detail) the `grpc-status-details-bin` of a
 * retryable OTLP/gRPC failure. `code` is a gRPC status code, never negative here.
 */
export function encodeStatusProto(
  code: number,
  message: string,
  retryAfterSeconds?: number,
): Buffer {
  const parts = [varintField(1, code)];
  if (message) parts.push(lengthDelimited(2, Buffer.from(message, "utf8")));
  if (retryAfterSeconds !== undefined) {
    const any = Buffer.concat([
      lengthDelimited(1, Buffer.from(RETRY_INFO_TYPE)),
      lengthDelimited(2, encodeRetryInfo(retryAfterSeconds)),
    ]);
    parts.push(lengthDelimited(3, any));
  }
  return Buffer.concat(parts);
}

/** An OTLP/HTTP error body in `encoding`. */
export function encodeStatus(code: number, message: string, encoding: OtlpEncoding): Buffer {
  return encoding === "protobuf"
    ? encodeStatusProto(code, message)
    : Buffer.from(JSON.stringify({ code, message }));
}
