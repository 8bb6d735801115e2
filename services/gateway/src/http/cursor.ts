import { timingSafeEqual } from "node:crypto";
import { DomainError, hmacSha256Under } from "@argus/platform";

/** Query parameters that move through a list rather than choose it; a cursor is not bound to them. */
const PAGING = new Set(["limit", "cursor"]);

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a cursor is bound to: the operation and its normalized filters (path parameters and
 * validated query with defaults applied, paging parameters left out), so a cursor made for one
 * list or filter is refused by every other.
 */
export function cursorBinding(
  operationId: string,
  params: Record<string, unknown>,
  query: Record<string, unknown>,
): string {
  const filters = Object.fromEntries(Object.entries(query).filter(([k]) => !PAGING.has(k)));
  return `${operationId}\n${canonical({ params, query: filters })}`;
}

const macs = new Map<string, (text: string) => string>();

/** The cursor's HMAC under the secret, as base64url. */
function mac(secret: string, binding: string, after: string): string {
  let under = macs.get(secret);
  if (!under) {
    under = hmacSha256Under(Buffer.from(secret, "utf8"));
    macs.set(secret, under);
  }
  return under(`${binding}\n${after}`);
}

/** `<base64url position>.<base64url HMAC>`: opaque to clients, unforgeable without the secret. */
export function signCursor(secret: string, binding: string, after: string): string {
  return `${Buffer.from(after, "utf8").toString("base64url")}.${mac(secret, binding, after)}`;
}

/** Bytes of a base64url string, or null unless it is the canonical spelling of them. */
function decodeCanonical(s: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) return null;
  // Node's decoder is lenient (it ignores trailing bits), so re-encode to compare.
  const bytes = Buffer.from(s, "base64url");
  return bytes.toString("base64url") === s ? bytes : null;
}

/** The position a cursor carries, or null when it was altered or made for another query. */
export function verifyCursor(secret: string, binding: string, cursor: string): string | null {
  const parts = cursor.split(".");
  if (parts.length !== 2) return null;
  const position = decodeCanonical(parts[0]!);
  if (!position) return null;
  const after = position.toString("utf8");
  // The expected MAC is canonical base64url, so only that spelling of it matches.
  const given = Buffer.from(parts[1]!, "utf8");
  const expected = Buffer.from(mac(secret, binding, after), "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected) ? after : null;
}

/**
 * The position a search body's `cursor` resumes at ("" without one); a cursor of another
 * search (other resource, version or filter) or a forged one is a 400.
 */
export function searchPosition(
  secret: string,
  binding: string,
  cursor: string | undefined,
): string {
  if (cursor === undefined) return "";
  const verified = verifyCursor(secret, binding, cursor);
  if (verified === null)
    throw new DomainError(
      "invalid-request",
      "the cursor is invalid or belongs to a different search",
    );
  return verified;
}

/** A search answer's `pagination`: the next cursor, bound as the search's own, when there is more. */
export const searchPagination = (secret: string, binding: string, next: string) =>
  next ? { has_more: true, next_cursor: signCursor(secret, binding, next) } : { has_more: false };
