/**
 * The body of an OTLP export cannot be read at all (not the format it claims, wrong structure,
 * over a request limit). The transport answers 400 with this message; nothing is stored.
 */
export class OtlpDecodeError extends Error {
  override readonly name = "OtlpDecodeError";
}

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
