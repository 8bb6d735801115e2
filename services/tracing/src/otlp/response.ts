import { ExportTraceServiceResponse } from "@argus/proto/otlp/collector/trace/v1/trace_service";
import type { OtlpEncoding } from "./decode.ts";

const utf8 = new TextEncoder();

/**
 * The body of a successful export: partial_success only when spans were rejected or there is a
 * message, as OTLP asks (an empty response means everything was accepted).
 */
export function encodeExportResponse(
  result: { rejectedSpans: number; errorMessage: string },
  encoding: OtlpEncoding,
): Uint8Array {
  const partial = result.rejectedSpans > 0 || result.errorMessage !== "";
  if (encoding === "json") {
    // OTLP/JSON writes int64 as a decimal string.
    const body = partial
      ? {
          partialSuccess: {
            rejectedSpans: String(result.rejectedSpans),
            errorMessage: result.errorMessage,
          },
        }
      : {};
    return utf8.encode(JSON.stringify(body));
  }
  return ExportTraceServiceResponse.encode({
    partialSuccess: partial
      ? { rejectedSpans: BigInt(result.rejectedSpans), errorMessage: result.errorMessage }
      : undefined,
  }).finish();
}

/**
 * An OTLP/HTTP error body: google.rpc.Status { int32 code = 1; string message = 2 } (details
 * omitted). Encoded by hand because the google protos are not vendored; proto3 leaves out fields
 * that hold their default.
 */
export function encodeStatus(code: number, message: string, encoding: OtlpEncoding): Uint8Array {
  if (encoding === "json") return utf8.encode(JSON.stringify({ code, message }));
  const head: number[] = [];
  if (code !== 0) {
    head.push(0x08); // field 1, varint
    // int32 is written as a 64-bit varint, so a negative code takes ten bytes.
    pushVarint(head, BigInt.asUintN(64, BigInt(code | 0)));
  }
  const text = utf8.encode(message);
  if (text.length === 0) return Uint8Array.from(head);
  head.push(0x12); // field 2, length-delimited
  pushVarint(head, BigInt(text.length));
  const body = new Uint8Array(head.length + text.length);
  body.set(head);
  body.set(text, head.length);
  return body;
}

function pushVarint(out: number[], value: bigint): void {
  let v = value;
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}
