import type { Metadata } from "@grpc/grpc-js";

/**
 * A call's request in one metadata entry, `<request id> <client address>` (the address empty for
 * a call that began inside): each entry is work on both sides of every call, as a credential's
 * are (callCredentials.ts). Split at the last space: an address has none.
 */
const REQUEST_KEY = "argus-request";

export function setRequest(md: Metadata, requestId: string, clientIp = ""): void {
  md.set(REQUEST_KEY, `${requestId} ${clientIp}`);
}

/** What `setRequest` put in; empty strings where a call carries none. */
export function requestOf(md: Metadata): { requestId: string; clientIp: string } {
  const [value] = md.get(REQUEST_KEY);
  const text = typeof value === "string" ? value : "";
  const space = text.lastIndexOf(" ");
  return space < 0
    ? { requestId: text, clientIp: "" }
    : { requestId: text.slice(0, space), clientIp: text.slice(space + 1) };
}
