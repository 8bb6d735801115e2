import type { Request } from "express";
import * as grpc from "@grpc/grpc-js";
import { isValidTraceId } from "@opentelemetry/api";
import {
  DomainError,
  recordDuration,
  toGrpcError,
  type Logger,
  type Principal,
} from "@argus/platform";
import { authenticate, chargeKey, type Authenticator } from "../auth/authenticate.ts";
import type { Caller } from "../backend.ts";
import type { GatewayLimiters } from "../http/rateLimit.ts";
import { answeredError } from "../http/problem.ts";
import { grpcRequestContext, type RequestContext } from "../http/requestContext.ts";

/** What every Flight call needs of the gateway: the REST API's authentication and limits. */
export interface FlightCallDeps {
  authenticator: Authenticator;
  /** The REST operations' own: one budget per key and per address, whatever is called. */
  limiters: GatewayLimiters;
  logger: Logger;
}

/** A Flight call once its caller is known: whom it is for, and its request's context. */
export interface FlightCaller {
  principal: Principal;
  ctx: RequestContext;
  /** Aborted when the client cancels the call (or its connection drops). */
  signal: AbortSignal;
}

/** Whom a backing service's call is made for, as REST's calls say it. */
export function asCaller(caller: FlightCaller): Caller {
  return {
    principal: caller.principal,
    requestId: caller.ctx.requestId,
    clientIp: caller.ctx.clientIp,
  };
}

const text = (v: grpc.MetadataValue | undefined): string | undefined =>
  v === undefined ? undefined : typeof v === "string" ? v : v.toString("utf8");

/**
 * The key of a Flight call: `auth-token-bin` (binary metadata, the raw key: what the official
 * SDK sends), else `authorization: Bearer <key>` as other gRPC clients send it.
 */
function bearerOf(md: grpc.Metadata): string | undefined {
  const token = text(md.get("auth-token-bin")[0])?.trim();
  if (token) return `Bearer ${token}`;
  const authorization = text(md.get("authorization")[0])?.trim();
  if (!authorization) return undefined;
  return /^bearer /i.test(authorization) ? authorization : `Bearer ${authorization}`;
}

/**
 * authenticate.ts reads nothing of an Express request but its Authorization header: this one
 * carries the Flight credentials, so REST, OTLP and Flight share its local checks, failure
 * budget and identity lookup rather than a copy of them.
 */
const carrying = (authorization: string | undefined): Request =>
  ({
    get: (name: string) => (name.toLowerCase() === "authorization" ? authorization : undefined),
  }) as unknown as Request;

async function authenticateFlight(
  md: grpc.Metadata,
  deps: FlightCallDeps,
  ctx: RequestContext,
): Promise<Principal> {
  try {
    const principal = await authenticate(
      carrying(bearerOf(md)),
      { authenticator: deps.authenticator, failures: deps.limiters.failures },
      ctx,
    );
    chargeKey(deps.limiters.perKey, principal);
    return principal;
  } catch (err) {
    // authenticate.ts names the REST header; a Flight client sends its key otherwise.
    if (ctx.auth === "missing")
      throw new DomainError(
        "authentication-required",
        "an API key is required: the 'auth-token-bin' header (the raw key, as the official SDK sends it) or 'authorization: Bearer <API key>'",
      );
    throw err;
  }
}

/** How a Flight call ended, for the client: the repo's one table of problem types. */
function flightStatus(err: unknown, ctx: RequestContext): grpc.ServiceError {
  const wire = toGrpcError(answeredError(err, ctx));
  return Object.assign(new Error(wire.details), wire) as grpc.ServiceError;
}

interface AnyServerCall {
  metadata: grpc.Metadata;
  getPeer(): string;
  on(event: "cancelled", listener: () => void): unknown;
}

/**
 * Serves one Flight call: its access log and metrics (its span is the gRPC instrumentation's), the caller's authentication (and
 * its key's rate limit) before anything else, then `body`; a failure is answered with `fail`.
 * `rpc` names the call in logs (`DoPut createDataset`).
 */
export function serveFlightCall(
  call: AnyServerCall,
  rpc: string,
  deps: FlightCallDeps,
  body: (caller: FlightCaller) => Promise<void>,
  fail: (status: grpc.ServiceError) => void,
): void {
  // The gRPC instrumentation's SERVER span (when the SDK runs), continuing the caller's trace.
  const ctx = grpcRequestContext(call.getPeer(), rpc, deps.logger);
  const { span } = ctx;
  const traceId = span.spanContext().traceId;
  const abort = new AbortController();
  call.on("cancelled", () =>
    abort.abort(new DomainError("service-unavailable", "the client cancelled the call")),
  );
  const started = performance.now();
  const done = (code: grpc.status) => {
    const seconds = (performance.now() - started) / 1000;
    recordDuration("rpc.server.duration", seconds, {
      "rpc.method": rpc,
      "rpc.grpc.status_code": code,
    });
    ctx.logger.info("request", {
      rpc,
      ...(ctx.auth ? { auth: ctx.auth } : {}),
      ...(ctx.principalCache ? { principal_cache: ctx.principalCache } : {}),
      grpc_status: code,
      duration_ms: Math.round(seconds * 1_000_000) / 1000,
      ...(isValidTraceId(traceId) ? { trace_id: traceId } : {}),
    });
  };
  void (async () => {
    try {
      const principal = await authenticateFlight(call.metadata, deps, ctx);
      await body({ principal, ctx, signal: abort.signal });
      done(abort.signal.aborted ? grpc.status.CANCELLED : grpc.status.OK);
    } catch (err) {
      if (abort.signal.aborted) {
        // Nobody is left to answer.
        done(grpc.status.CANCELLED);
        return;
      }
      const status = flightStatus(err, ctx);
      fail(status);
      done(status.code);
    }
  })();
}
