import {
  sendOutbound,
  type OutboundPolicy,
  type OutboundResult,
  type Resolve,
} from "@argus/platform";
import { deliveryHeaders, signatureHeaders } from "./deliverySigning.ts";

/** What one attempt needs of a webhook, its credentials included. */
export interface Destination {
  url: string;
  authType: string;
  timeoutMs: number;
  headers: Record<string, string>;
  authToken: string | null;
  signingSecret: string | null;
}

export interface Outbound {
  policy: OutboundPolicy;
  /** DNS resolution; tests name hosts that resolve to loopback. */
  resolve?: Resolve;
}

/**
 * One attempt: the custom headers first, then Argus's own (they cannot be overridden: the
 * decider refuses such names, and these are set last anyway), a fresh timestamp and, for
 * HMAC_SHA256, both signatures over the exact body.
 */
export function attempt(
  to: Destination,
  message: { eventId: string; event: string; body: string },
  outbound: Outbound,
  now: Date,
): Promise<OutboundResult> {
  const signed = { ...message, timestamp: Math.floor(now.getTime() / 1000) };
  const headers: Record<string, string> = {
    ...to.headers,
    "content-type": "application/json",
    ...deliveryHeaders(signed),
  };
  if (to.authType === "HMAC_SHA256" && to.signingSecret)
    Object.assign(headers, signatureHeaders(signed, to.signingSecret));
  else if (to.authToken) headers.authorization = to.authToken;
  return sendOutbound({
    url: to.url,
    headers,
    body: message.body,
    timeoutMs: to.timeoutMs,
    policy: outbound.policy,
    ...(outbound.resolve ? { resolve: outbound.resolve } : {}),
  });
}
