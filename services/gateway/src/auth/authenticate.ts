import type { Request } from "express";
import { isPlausibleApiKey } from "@argus/contracts/apiKeyFormat";
import { DomainError, type Principal } from "@argus/platform";
import { GatewayError, toDomainError } from "../http/problem.ts";
import type { RateDecision, RateLimiter } from "../http/rateLimit.ts";
import type { AuthOutcome, RequestContext } from "../http/requestContext.ts";
import type { CacheOutcome } from "./principalCache.ts";

// Any printable ASCII secret (operators choose the initial key freely), bounded so an absurd
// header never reaches identity. Keys Argus generates are a subset of RFC 6750's b64token.
const BEARER = /^Bearer +([\x21-\x7E](?:[\x20-\x7E]{0,510}[\x21-\x7E])?) *$/i;

/** Resolves a raw bearer secret; throws DomainError("authentication-required") for unknown keys. */
export interface Authenticator {
  authenticate(rawKey: string, meta: AuthenticationMeta): Promise<Principal>;
}

export interface AuthenticationMeta {
  requestId: string;
  clientIp: string;
  /** Told where a principal came from (a caching authenticator), for the request log. */
  cacheOutcome?: (outcome: CacheOutcome) => void;
}

export interface AuthDeps {
  authenticator: Authenticator;
  /**
   * Failed authentications per client address. A request that fails is charged one token; an
   * address without tokens gets 429 before identity is asked, whatever key it sends (so
   * guessing well-formed keys costs identity nothing either). Successes are never charged.
   */
  failures: RateLimiter;
}

const throttled = (decision: RateDecision & { allowed: false }): GatewayError =>
  new GatewayError(
    "rate-limit-exceeded",
    "too many requests without valid credentials from this address",
    { "Retry-After": String(decision.retryAfterSeconds) },
  );

/**
 * `Authorization: Bearer <API key>` → Principal. A missing or malformed header, or a key that
 * cannot be one (`isPlausibleApiKey`: e.g. an `ak-argus-` key whose checksum fails), never
 * calls identity.
 */
export async function authenticate(
  req: Request,
  deps: AuthDeps,
  ctx: RequestContext,
): Promise<Principal> {
  const address = ctx.clientIp;
  /** Charges the failure to the address: 429 once its budget is spent, else `error`. */
  const fail = (outcome: AuthOutcome, error: unknown): never => {
    ctx.auth = outcome;
    const decision = deps.failures.take(address);
    if (!decision.allowed) {
      ctx.auth = "throttled";
      throw throttled(decision);
    }
    throw error;
  };

  const header = req.get("authorization");
  const key = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (key === undefined) {
    return fail(
      "missing",
      new DomainError(
        "authentication-required",
        header === undefined
          ? "an 'Authorization: Bearer <API key>' header is required"
          : "the Authorization header must be 'Bearer <API key>'",
      ),
    );
  }
  // The same answer identity gives for a key it does not know: nothing to tell them apart.
  if (!isPlausibleApiKey(key))
    return fail(
      "refused_locally",
      new DomainError("authentication-required", "missing or invalid API key"),
    );

  const budget = deps.failures.peek(address);
  if (!budget.allowed) {
    ctx.auth = "throttled";
    throw throttled(budget);
  }
  try {
    const principal = await deps.authenticator.authenticate(key, {
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      cacheOutcome: (outcome) => (ctx.principalCache = outcome),
    });
    ctx.auth = "ok";
    return principal;
  } catch (err) {
    // Only identity's verdict counts as a failure; its being unavailable is not the caller's.
    if (toDomainError(err).error.type === "authentication-required") return fail("rejected", err);
    throw err;
  }
}

/**
 * Spends one token of the key's budget (every authenticated request, REST or OTLP, whichever
 * listener): 429 with `Retry-After` once it is spent.
 */
export function chargeKey(limiter: RateLimiter, principal: Principal): void {
  const decision = limiter.take(principal.apiKeyId);
  if (!decision.allowed)
    throw new GatewayError("rate-limit-exceeded", "too many requests for this API key", {
      "Retry-After": String(decision.retryAfterSeconds),
    });
}
