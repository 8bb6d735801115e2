import { createHash } from "node:crypto";
import {
  DomainError,
  callUnary,
  type CallCredential,
  type ForwardedKey,
  type SecretBox,
} from "@argus/platform";
import {
  BeginResponse_Outcome as Outcome,
  IdempotencyServiceService,
} from "@argus/proto/identity/v1/idempotency";
import type { Backend } from "../backend.ts";

/**
 * Safe retries (docs/architecture.md, "Safe retries"): the gateway's half. A request sent with
 * an Idempotency-Key is begun under the caller's key in identity (one record every gateway
 * process shares, kept across restarts), run with the key forwarded to the services that apply
 * it, and completed with its answer, which a request with the same key and fingerprint gets
 * again instead of running.
 */

/** A request under its caller's key. */
export interface KeyedRequest extends ForwardedKey {
  /** `idempotencyScope` of the caller's principal. */
  scope: string;
}

export type Begun =
  | { kind: "started"; attempt: string }
  | { kind: "replay"; status: number; body: Buffer }
  | { kind: "mismatch" }
  | { kind: "in_flight" };

/** An answer to keep for replays, or "release": forget the key, a retry runs again. */
export type Completion = { status: number; body: Buffer } | "release";

/** Where the gateway keeps the answers to keyed requests. */
export interface IdempotencyKeys {
  begin(req: KeyedRequest, leaseMs: number, requestId: string): Promise<Begun>;
  complete(
    req: KeyedRequest,
    attempt: string,
    completion: Completion,
    requestId: string,
  ): Promise<void>;
}

/**
 * Whether an answer is kept for replays. 409 (a conflict of the moment, or an answer lost),
 * 429 and every 5xx are not: they say nothing final about the request, so a retry runs it
 * again (and the service that applied an earlier attempt, if one did, answers for it).
 */
export const keepsAnswer = (status: number): boolean =>
  status < 500 && status !== 408 && status !== 409 && status !== 429;

/** JSON with every object's keys sorted, so equal values give equal text whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What makes two requests the same one: method, the operation's path with its parameters, the
 * validated query and the body, canonical (key order and whitespace do not count).
 */
export function requestFingerprint(r: {
  method: string;
  route: string;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}): string {
  return createHash("sha256")
    .update(canonicalJson([r.method.toUpperCase(), r.route, r.params, r.query, r.body ?? null]))
    .digest("hex");
}

const asBegun = (res: {
  outcome: Outcome;
  attempt: string;
  status: number;
  body: Buffer;
}): Begun => {
  switch (res.outcome) {
    case Outcome.OUTCOME_STARTED:
      return { kind: "started", attempt: res.attempt };
    case Outcome.OUTCOME_REPLAY:
      return { kind: "replay", status: res.status, body: Buffer.from(res.body) };
    case Outcome.OUTCOME_MISMATCH:
      return { kind: "mismatch" };
    case Outcome.OUTCOME_IN_FLIGHT:
      return { kind: "in_flight" };
    default:
      throw new DomainError("internal-error", `unknown idempotency outcome ${res.outcome}`);
  }
};

/**
 * identity's IdempotencyService, called as the gateway itself. Answers are sealed before they
 * leave (`box`, a key of the gateway's own): some carry secrets shown once (a new API key, a
 * webhook's signing secret), which identity's tables must not hold readable. Each is bound to
 * its caller's key, so a sealed answer copied to another key does not open there.
 */
export function identityIdempotencyKeys(
  identity: Backend,
  gateway: CallCredential,
  box: SecretBox,
): IdempotencyKeys {
  const boundTo = (req: KeyedRequest) => `idempotent-answer\0${req.scope}\0${req.key}`;
  const opts = (requestId: string) => ({
    credential: gateway,
    requestId,
    deadlineMs: identity.deadlineMs,
  });
  return {
    async begin(req, leaseMs, requestId) {
      const res = await callUnary(
        identity.channel,
        IdempotencyServiceService.begin,
        { ...req, leaseMs: BigInt(leaseMs) },
        opts(requestId),
      );
      const begun = asBegun(res);
      if (begun.kind !== "replay") return begun;
      try {
        return { ...begun, body: Buffer.from(box.open(begun.body.toString("utf8"), boundTo(req))) };
      } catch {
        // Sealed under a key this gateway no longer holds (its secret was rotated).
        throw new DomainError(
          "resource-conflict",
          "this Idempotency-Key's request was answered, but the answer kept for it can no longer be read: read the resource",
        );
      }
    },
    async complete(req, attempt, completion, requestId) {
      await callUnary(
        identity.channel,
        IdempotencyServiceService.complete,
        {
          scope: req.scope,
          key: req.key,
          attempt,
          ...(completion === "release"
            ? { status: 0, body: Buffer.alloc(0), release: true }
            : {
                status: completion.status,
                body: Buffer.from(box.seal(completion.body.toString("utf8"), boundTo(req))),
                release: false,
              }),
        },
        opts(requestId),
      );
    },
  };
}
