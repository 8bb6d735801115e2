/**
 * The principal-cache invalidation between identity and the gateways (core NATS request with
 * many replies, not JetStream: a message nobody is listening for has nobody to invalidate).
 * docs/architecture.md, "Principal cache and invalidation".
 */

/** "Drop what you cached for this account": sent once per epoch bump. */
export interface PrincipalInvalidation {
  /** The account whose principals may have changed; "" = every account. */
  accountId: string;
  /** The authorization epoch the bump produced. */
  epoch: number;
}

/** A gateway's reply, sent only after it dropped the account's entries. */
export interface InvalidationAck {
  gatewayId: string;
}

/** Ids a gateway may give itself: they are lease keys and log fields. */
export const GATEWAY_ID = /^[A-Za-z0-9_-]{1,64}$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodeInvalidation = (m: PrincipalInvalidation): Uint8Array =>
  encoder.encode(JSON.stringify({ account_id: m.accountId, epoch: m.epoch }));

/** The invalidation in `bytes`, or undefined when they are not one. */
export function decodeInvalidation(bytes: Uint8Array): PrincipalInvalidation | undefined {
  const v = parse(bytes);
  if (typeof v.account_id !== "string" || !Number.isSafeInteger(v.epoch)) return undefined;
  return { accountId: v.account_id, epoch: v.epoch as number };
}

export const encodeAck = (m: InvalidationAck): Uint8Array =>
  encoder.encode(JSON.stringify({ gateway_id: m.gatewayId }));

export function decodeAck(bytes: Uint8Array): InvalidationAck | undefined {
  const v = parse(bytes);
  return typeof v.gateway_id === "string" && GATEWAY_ID.test(v.gateway_id)
    ? { gatewayId: v.gateway_id }
    : undefined;
}

function parse(bytes: Uint8Array): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(decoder.decode(bytes));
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
