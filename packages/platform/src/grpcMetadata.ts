import type { Metadata } from "@grpc/grpc-js";
import { legacyCredentials } from "./callCredentials.ts";

/**
 * A call's request in one metadata entry, `<request id> <client address>` (the address empty for
 * a call that began inside): each entry is work on both sides of every call, as a credential's
 * are (callCredentials.ts). Split at the last space: an address has none.
 */
const REQUEST_KEY = "argus-request";

/** The two entries a request was before (until 2026-12-04; callCredentials.ts `LEGACY`). */
const LEGACY_REQUEST_ID = "x-request-id";
const LEGACY_CLIENT_IP = "x-client-ip";

export function setRequest(md: Metadata, requestId: string, clientIp = ""): void {
  md.set(REQUEST_KEY, `${requestId} ${clientIp}`);
}

const text = (md: Metadata, key: string): string | undefined => {
  const [value] = md.get(key);
  return typeof value === "string" ? value : undefined;
};

/** What `setRequest` put in (or a process of the version before); "" where a call has none. */
export function requestOf(md: Metadata): { requestId: string; clientIp: string } {
  const entry = text(md, REQUEST_KEY);
  if (entry === undefined)
    return {
      requestId: text(md, LEGACY_REQUEST_ID) ?? "",
      clientIp: text(md, LEGACY_CLIENT_IP) ?? "",
    };
  const space = entry.lastIndexOf(" ");
  return space < 0
    ? { requestId: entry, clientIp: "" }
    : { requestId: entry.slice(0, space), clientIp: entry.slice(space + 1) };
}

/**
 * `md` as a process of the version before 2026-12-04 reads it: the credential's three entries
 * and the request's two. Such a process refuses this version's call as "unsigned call"; the
 * caller then sends it once more so (grpcClient.ts), while a rolling upgrade runs both.
 */
export function legacyMetadata(md: Metadata): Metadata {
  const out = legacyCredentials(md);
  const { requestId, clientIp } = requestOf(md);
  out.remove(REQUEST_KEY);
  out.set(LEGACY_REQUEST_ID, requestId);
  if (clientIp) out.set(LEGACY_CLIENT_IP, clientIp);
  return out;
}
