import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";

/** A new signing secret: `whsec_` and 32 random bytes in base64, as Standard Webhooks has it. */
export const newSigningSecret = (): string => PREFIX + randomBytes(32).toString("base64");

/** What stays readable of a secret: its prefix and last four characters. */
export const secretHint = (secret: string): string => `${PREFIX}…${secret.slice(-4)}`;

export interface Delivery {
  /** The event's id: the receiver's idempotency key, the same on every attempt. */
  eventId: string;
  /** `prompt.version.created`, …: the X-Arize-Webhook-Event header. */
  event: string;
  /** The exact body sent. */
  body: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/**
 * The identifying headers of every delivery: the public API's `X-Arize-Webhook-*` and the
 * Standard Webhooks `webhook-*` ones, which a receiver uses to deduplicate retries.
 */
export function deliveryHeaders(d: Delivery): Record<string, string> {
  const ts = String(d.timestamp);
  return {
    "x-arize-webhook-id": d.eventId,
    "x-arize-webhook-event": d.event,
    "x-arize-webhook-timestamp": ts,
    "webhook-id": d.eventId,
    "webhook-timestamp": ts,
  };
}

/**
 * Both signatures of an HMAC_SHA256 delivery over the same bytes (ARCHITECTURE §9): the public
 * API's `v1=<hex HMAC of "timestamp.body">` keyed with the secret string as returned, and
 * Standard Webhooks' `v1,<base64 HMAC of "id.timestamp.body">` keyed with the secret's
 * base64-decoded bytes, which the `standardwebhooks` verifiers accept.
 */
export function signatureHeaders(d: Delivery, secret: string): Record<string, string> {
  const ts = String(d.timestamp);
  const arize = createHmac("sha256", secret).update(`${ts}.${d.body}`).digest("hex");
  const key = Buffer.from(
    secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
    "base64",
  );
  const standard = createHmac("sha256", key)
    .update(`${d.eventId}.${ts}.${d.body}`)
    .digest("base64");
  return { "x-arize-webhook-signature": `v1=${arize}`, "webhook-signature": `v1,${standard}` };
}
