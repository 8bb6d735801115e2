import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import { isValidTraceId, type Span } from "@opentelemetry/api";
import { currentSpan, setHttpRoute, type Logger } from "@argus/platform";
import type { CacheOutcome } from "../auth/principalCache.ts";

/** What the gateway knows about a request from its first byte on. */
export interface RequestContext {
  requestId: string;
  clientIp: string;
  /** The request path, used as the Problem `instance`. */
  path: string;
  /** The request's SERVER span (the HTTP or gRPC instrumentation's; recording nothing without the SDK). */
  span: Span;
  logger: Logger;
  /** Set once an operation matched: its answers, Problems too, are never cached. */
  noStore?: boolean;
  /** The document's route template once an operation matched. */
  route?: string;
  /** How authentication ended (authenticate.ts), logged with the request. */
  auth?: AuthOutcome;
  /** Where the principal came from (principalCache.ts), logged with the request. */
  principalCache?: CacheOutcome;
}

/**
 * `ok`: a principal was found (identity's, or the principal cache's: `principalCache` says
 * which); `missing`: no usable `Authorization` header; `refused_locally`: a key that cannot be
 * one (never sent to identity); `rejected`: identity does not know the key; `throttled`: the
 * client address's budget of failures was spent, so identity was not asked.
 */
export type AuthOutcome = "ok" | "missing" | "refused_locally" | "rejected" | "throttled";

// Kept on the request itself: a WeakMap entry per request costs more to make and to collect.
const CONTEXT = Symbol("argus.requestContext");
type Started = Request & { [CONTEXT]?: RequestContext };
// Incoming ids are echoed and logged, so only short, plain ones are kept.
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The request's context, or undefined before its first step (`requestStarter`). */
export const startedContext = (req: Request): RequestContext | undefined =>
  (req as Started)[CONTEXT];

export function requestContext(req: Request): RequestContext {
  const ctx = startedContext(req);
  if (!ctx) throw new Error("the request was not started (requestStarter)");
  return ctx;
}

/**
 * The matched route, e.g. `/v2/spaces/{space_id}`: the access log's, and (from the HTTP
 * instrumentation, when the response ends) the server span's name `GET /v2/spaces/{space_id}`,
 * its `http.route` and its duration histogram's.
 */
export function setRoute(ctx: RequestContext, route: string): void {
  ctx.route = route;
  setHttpRoute(route);
}

/**
 * A request's first step: its request id (every answer's `X-Request-Id`, answerHeaders.ts) and
 * access log. The request's SERVER span, continuing an incoming `traceparent`, is the HTTP
 * instrumentation's (it times the request too).
 */
export function requestStarter(logger: Logger): (req: Request, res: Response) => void {
  return (req, res) => {
    const incoming = req.get("x-request-id");
    const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const path = req.originalUrl.split("?")[0] ?? "/";
    const span = currentSpan();
    const ctx: RequestContext = {
      requestId,
      // The peer's address: the gateway trusts no proxy header (Express's `req.ip` would parse
      // X-Forwarded-For on every request only to answer the same).
      clientIp: req.socket.remoteAddress ?? "",
      path,
      span,
      logger: logger.child({ request_id: requestId }),
    };
    (req as Started)[CONTEXT] = ctx;
    // The access log is at `info`: at a quieter level nothing is gathered for it.
    if (!logger.enabled("info")) return;
    const started = performance.now();
    res.once("close", () => {
      const traceId = span.spanContext().traceId;
      ctx.logger.info("request", {
        method: req.method,
        route: ctx.route ?? null,
        path,
        ...(ctx.auth ? { auth: ctx.auth } : {}),
        ...(ctx.principalCache ? { principal_cache: ctx.principalCache } : {}),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        completed: res.writableFinished,
        ...(isValidTraceId(traceId) ? { trace_id: traceId } : {}),
      });
    });
  };
}

/** grpc-js peers read `ipv4:1.2.3.4:5`, `ipv6:[::1]:5` or plain `1.2.3.4:5`: the address. */
function peerAddress(peer: string): string {
  const address = peer.replace(/^ipv[46]:/, "");
  const bracketed = /^\[([^\]]*)\]/.exec(address);
  if (bracketed) return bracketed[1]!;
  const colon = address.lastIndexOf(":");
  return colon > 0 && address.indexOf(":") === colon ? address.slice(0, colon) : address;
}

/**
 * A gRPC call's context (OTLP/gRPC, Flight): a fresh request id, the peer's address, `name` as
 * path and route, and the gRPC instrumentation's SERVER span, which continues the caller's trace.
 */
export function grpcRequestContext(peer: string, name: string, logger: Logger): RequestContext {
  const requestId = randomUUID();
  return {
    requestId,
    clientIp: peerAddress(peer),
    path: name,
    route: name,
    span: currentSpan(),
    logger: logger.child({ request_id: requestId }),
  };
}
