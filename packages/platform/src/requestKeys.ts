import type { Metadata } from "@grpc/grpc-js";
import type { Principal } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";

/**
 * Safe retries (docs/architecture.md, "Safe retries"): what the gateway forwards of a request
 * sent with an `Idempotency-Key`, so the service that applies it can tell a second execution
 * of the same request from a new one.
 */
export interface ForwardedKey {
  /** The client's `Idempotency-Key`, as sent (1–255 printable ASCII). */
  key: string;
  /** A hash of the request's method, path and canonical body (the gateway's). */
  fingerprint: string;
}

/** A request key as a service sees it: scoped to its caller, under one RPC method. */
export interface RequestKey extends ForwardedKey {
  /** Whose key it is: `idempotencyScope` of the caller's signed principal. */
  scope: string;
  /** The RPC's path: one request may apply several RPCs, each remembered on its own. */
  method: string;
  /**
   * Set by the command handler once a transaction that recorded the key committed: the call's
   * answer must then be stored for a re-forwarded request (grpcServer.ts).
   */
  recorded: boolean;
  /** The answer carries a secret shown once: no copy of it is kept (`withholdReply`). */
  replyWithheld?: boolean;
}

const IDEMPOTENCY_KEY_METADATA = "argus-idempotency-key";
const IDEMPOTENCY_FINGERPRINT_METADATA = "argus-idempotency-fingerprint";

/** How long a key is remembered: a request sent again within it is not applied again. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** 1–255 printable ASCII characters (space to tilde), the limits of the `Idempotency-Key` header. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

// A fingerprint is the gateway's hex SHA-256.
const FINGERPRINT = /^[0-9a-f]{64}$/;

/**
 * The caller a key belongs to: its account and subject (the user of a USER key, the service
 * account of a SERVICE key). Two keys of one user share their Idempotency-Keys; two users never do.
 */
export function idempotencyScope(p: Principal): string {
  return p.userId ? `${p.accountId}/user/${p.userId}` : `${p.accountId}/sa/${p.serviceAccountId}`;
}

/**
 * For a handler whose answer carries a secret shown once (a new API key, a webhook's signing
 * secret, a generated password): the service keeps no copy of it for a request forwarded
 * again, which is then told the answer was lost. Call it before returning the answer.
 */
export function withholdReply(ctx: { requestKey?: RequestKey | undefined }): void {
  if (ctx.requestKey) ctx.requestKey.replyWithheld = true;
}

/** Puts a forwarded key on an outgoing call's metadata. */
export function attachForwardedKey(md: Metadata, key: ForwardedKey): void {
  md.set(IDEMPOTENCY_KEY_METADATA, key.key);
  md.set(IDEMPOTENCY_FINGERPRINT_METADATA, key.fingerprint);
}

/**
 * The key an incoming call carries, if any. A malformed one is refused rather than ignored:
 * only the gateway forwards keys, so a bad one is a bug the caller must hear of.
 */
export function forwardedKeyOf(md: Metadata): ForwardedKey | undefined {
  const key = md.get(IDEMPOTENCY_KEY_METADATA)[0];
  const fingerprint = md.get(IDEMPOTENCY_FINGERPRINT_METADATA)[0];
  if (key === undefined && fingerprint === undefined) return undefined;
  if (
    typeof key !== "string" ||
    !IDEMPOTENCY_KEY_PATTERN.test(key) ||
    typeof fingerprint !== "string" ||
    !FINGERPRINT.test(fingerprint)
  )
    throw new DomainError("invalid-request", "malformed idempotency key metadata");
  return { key, fingerprint };
}

/**
 * A command found its request key already recorded: the request was applied by an earlier
 * execution (whose answer the caller did not get). The gRPC binding answers it with the stored
 * answer; should it escape, it is a 409.
 */
export class RequestAlreadyApplied extends DomainError {
  constructor() {
    super(
      "resource-conflict",
      "this request (Idempotency-Key) was already applied; its answer is being stored",
    );
    this.name = "RequestAlreadyApplied";
  }
}

/** The answer to a request applied earlier whose answer was not stored (the rare window). */
export const answerLost = (): DomainError =>
  new DomainError(
    "resource-conflict",
    "this request (Idempotency-Key) was applied, but its answer was lost: read the resource to see the outcome",
  );

/** The same Idempotency-Key sent with another request. */
export const keyReused = (): DomainError =>
  new DomainError(
    "unprocessable-entity",
    "this Idempotency-Key was used with a different request (method, path or body)",
  );
