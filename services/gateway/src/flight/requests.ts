import { DomainError, decodeId } from "@argus/platform";

/**
 * The requests Flight calls carry (a DoPut's descriptor command, a DoGet's ticket, a DoAction's
 * body): UTF-8 JSON of a `public` message (proto3 JSON, camel or snake names), parsed with its
 * generated `fromJSON`. Anything else is INVALID_ARGUMENT naming what was wrong.
 */

export const invalid = (message: string): DomainError =>
  new DomainError("invalid-request", message);

/** A proto3 JSON object from request bytes; `what` names them in errors. */
export function jsonObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw invalid(`${what} is not UTF-8 JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** The parsed message's oneof, or INVALID_ARGUMENT listing what `what` may hold. */
export function requestCase<R extends { $case: string }>(
  parsed: { request?: R | undefined },
  what: string,
  served: readonly string[],
): R {
  if (!parsed.request)
    throw invalid(
      `${what} holds no request this server knows: expected one of ${served.join(", ")}`,
    );
  return parsed.request;
}

/** A public id of `type` given in `field`: its uuid; INVALID_ARGUMENT when absent or malformed. */
export function idOf(type: string, raw: string, field: string): string {
  if (raw === "") throw invalid(`${field} is required`);
  const uuid = decodeId(type, raw);
  if (uuid === null) throw invalid(`${field} is not a ${type} id: ${JSON.stringify(raw)}`);
  return uuid;
}

export function required(raw: string, field: string): string {
  if (raw.trim() === "") throw invalid(`${field} is required`);
  return raw;
}
