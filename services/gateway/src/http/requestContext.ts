import { randomUUID } from "node:crypto";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { SpanKind, SpanStatusCode, context, trace, type Span } from "@opentelemetry/api";
import { extractContext, recordDuration, type Logger } from "@argus/platform";
import type { CacheOutcome } from "../auth/principalCache.ts";

/** What the gateway knows about a request from its first byte on. */
export interface RequestContext {
  requestId: string;
  clientIp: string;
  /** The request path, used as the Problem `instance`. */
  path: string;
  span: Span;
  logger: Logger;
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

const contexts = new WeakMap<Request, RequestContext>();
// Incoming ids are echoed and logged, so only short, plain ones are kept.
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function requestContext(req: Request): RequestContext {
  const ctx = contexts.get(req);
  if (!ctx) throw new Error("beginRequest did not run");
  return ctx;
}

/** Names the server span after the matched route, e.g. `GET /v2/spaces/{space_id}`. */
export function setRoute(ctx: RequestContext, method: string, route: string): void {
  ctx.route = route;
  ctx.span.updateName(`${method} ${route}`);
  ctx.span.setAttribute("http.route", route);
}

/** First middleware: request id, server span (child of an incoming traceparent), access log. */
export function beginRequest(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get("x-request-id");
    const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.set("X-Request-Id", requestId);
    const parent = extractContext({ get: (k) => req.get(k), set: () => undefined });
    const path = req.originalUrl.split("?")[0] ?? "/";
    // Looked up per request, not at import: a tracer taken before initTelemetry registers the
    // provider stays a no-op, because the SDK (CJS) and this module (ESM) load separate copies
    // of @opentelemetry/api and only the global registry is shared between them.
    const span = trace.getTracer("argus.gateway").startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": req.method, "url.path": path },
      },
      parent,
    );
    const ctx: RequestContext = {
      requestId,
      clientIp: req.ip ?? req.socket.remoteAddress ?? "",
      path,
      span,
      logger: logger.child({ request_id: requestId }),
    };
    contexts.set(req, ctx);
    const started = performance.now();
    res.once("close", () => {
      span.setAttribute("http.response.status_code", res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      recordDuration("http.server.request.duration", (performance.now() - started) / 1000, {
        "http.request.method": req.method,
        "http.route": ctx.route ?? "unmatched",
        "http.response.status_code": res.statusCode,
      });
      ctx.logger.info("request", {
        method: req.method,
        route: ctx.route ?? null,
        path,
        ...(ctx.auth ? { auth: ctx.auth } : {}),
        ...(ctx.principalCache ? { principal_cache: ctx.principalCache } : {}),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        completed: res.writableFinished,
        trace_id: span.spanContext().traceId,
      });
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
