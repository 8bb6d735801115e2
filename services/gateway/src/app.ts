import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { DomainError, systemClock, type Clock, type Logger } from "@argus/platform";
import { createBodyReader } from "./http/body.ts";
import type { GatewayConfig } from "./config.ts";
import type { Authenticator } from "./auth/authenticate.ts";
import { handlerOf, type Handlers } from "./http/handler.ts";
import { refuseLongUri } from "./http/httpLimits.ts";
import { addHeadersToEveryAnswer } from "./http/answerHeaders.ts";
import { loadDocument, type LoadedDocument } from "./openapi/document.ts";
import { compileOperations, type CompiledOperation } from "./openapi/operations.ts";
import { OPERATIONAL_PATHS, operationalRoutes } from "./http/operationalRoutes.ts";
import { PANDAS_ARROW_PATH, pandasArrowRoute, type PandasArrowDeps } from "./flight/pandasArrow.ts";
import { OTLP_TRACES_PATHS, otlpTracesRoute } from "./otlp/httpRoute.ts";
import type { TraceExport } from "./otlp/ingest.ts";
import type { IdempotencyKeys } from "./http/idempotentRequests.ts";
import { operationRouter } from "./http/operationRouter.ts";
import { operationRoute, type PipelineDeps } from "./http/pipeline.ts";
import { GatewayError, answeredError, sendProblem } from "./http/problem.ts";
import { createRateLimiter, type GatewayLimiters } from "./http/rateLimit.ts";
import { requestContext, requestStarter } from "./http/requestContext.ts";

export interface GatewayDeps {
  authenticator: Authenticator;
  /** One handler per operationId of the OpenAPI document, no more, no less. */
  handlers: Handlers;
  config: GatewayConfig;
  logger: Logger;
  /** Readiness beyond "the process is alive", e.g. identity answers. */
  ready: () => Promise<boolean>;
  /** The gateway's "now" (rate limiting); tests pin it with `fixedClock`. Default: the system's. */
  clock?: Clock;
  /**
   * Given when another listener (OTLP/gRPC) shares them, so a key has one budget whatever it
   * calls; absent: the app makes its own from `config` and `clock`.
   */
  limiters?: GatewayLimiters;
  /** The tracing service's Export: OTLP/HTTP `POST /v1/traces` (otlp/); absent: not served. */
  traceExport?: TraceExport;
  /**
   * The SDK's span writes: `POST /v1/pandas_arrow` (flight/pandasArrow.ts, with traceExport for
   * spans.log); absent: not served.
   */
  spanWrites?: PandasArrowDeps["spans"];
  /** Where answers to requests with an Idempotency-Key are kept; absent: the header is ignored. */
  idempotencyKeys?: IdempotencyKeys;
}

function checkHandlers(ops: CompiledOperation[], handlers: GatewayDeps["handlers"]): void {
  const ids = new Set(ops.map((o) => o.operationId));
  const missing = [...ids].filter((id) => !handlerOf(handlers, id));
  const unknown = Object.keys(handlers).filter((id) => !ids.has(id));
  if (missing.length) throw new Error(`no handler for operation(s): ${missing.join(", ")}`);
  if (unknown.length)
    throw new Error(`handler(s) for operations not in the document: ${unknown.join(", ")}`);
}

/** The gateway's token buckets, from its configuration. */
export function createLimiters(config: GatewayConfig, clock: Clock = systemClock): GatewayLimiters {
  const now = { now: () => clock.now().getTime() };
  return {
    perKey: createRateLimiter({
      ratePerSecond: config.rateLimitPerSecond,
      burst: config.rateLimitBurst,
      ...now,
    }),
    failures: createRateLimiter({
      ratePerSecond: config.unauthRateLimitPerSecond,
      burst: config.unauthRateLimitBurst,
      ...now,
    }),
  };
}

/** Another method on a path served for POST only: 405 with Allow, as the document's paths answer. */
const postOnly = (req: Request): never => {
  throw new GatewayError("method-not-allowed", `${req.method} is not allowed here; allowed: POST`, {
    Allow: "POST",
  });
};

/**
 * The gateway's HTTP application: every route comes from the OpenAPI document, except OTLP's
 * `POST /v1/traces` and `POST /v1` (a protocol of its own, with OTLP's bodies and errors, not the public API).
 */
export function createApp(deps: GatewayDeps, loaded: LoadedDocument = loadDocument()): Express {
  const ops = compileOperations(loaded.document);
  checkHandlers(ops, deps.handlers);
  const limiters = deps.limiters ?? createLimiters(deps.config, deps.clock);
  const pipelineDeps = {
    authenticator: deps.authenticator,
    limiter: limiters.perKey,
    failureLimiter: limiters.failures,
    readBody: createBodyReader(deps.config.maxBodyBytes),
    cursorSecret: deps.config.cursorSecret,
    errorsBase: deps.config.errorsBase,
    idempotency: deps.idempotencyKeys && {
      keys: deps.idempotencyKeys,
      leaseMs: deps.config.idempotencyLeaseMs,
    },
  };

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // The pipeline decodes the query itself, strictly (storableText.ts): Express's parser would
  // turn bytes that are not UTF-8 into U+FFFD.
  app.set("query parser", false);
  addHeadersToEveryAnswer(app);
  // Every request's first steps in one middleware (each Express layer is a dispatch of its own):
  // its context, then the 414 of a long target.
  const start = requestStarter(deps.logger);
  app.use((req, res, next) => {
    start(req, res);
    refuseLongUri(req);
    next();
  });
  // An operation that declares a larger body limit (dataset writes) reads up to it; a
  // configured limit above it still wins, so raising ARGUS_MAX_BODY_BYTES never lowers one.
  const readers = new Map<number, PipelineDeps["readBody"]>();
  const readerFor = (o: CompiledOperation): PipelineDeps["readBody"] => {
    const limit = Math.max(deps.config.maxBodyBytes, o.maxBodyBytes ?? 0);
    if (limit === deps.config.maxBodyBytes) return pipelineDeps.readBody;
    let reader = readers.get(limit);
    if (!reader) readers.set(limit, (reader = createBodyReader(limit)));
    return reader;
  };
  const routeOf = operationRouter(
    ops.map((o) => ({
      path: o.path,
      method: o.method,
      route: operationRoute(o, handlerOf(deps.handlers, o.operationId)!, {
        ...pipelineDeps,
        readBody: readerFor(o),
      }),
    })),
  );
  for (const path of [...OPERATIONAL_PATHS, ...OTLP_TRACES_PATHS, PANDAS_ARROW_PATH])
    if (routeOf("GET", path).kind !== "none")
      throw new Error(
        `an operation of the document takes ${path}, which the gateway serves itself`,
      );
  // The document's operations first: they are the traffic, and no operation's path is one of
  // the routes below (probes, the document, OTLP, pandas_arrow; checked just above), so the
  // order answers the same.
  app.use((req, res, next) => {
    const found = routeOf(req.method, req.path);
    if (found.kind === "none") return next();
    if (found.kind === "method-not-allowed")
      throw new GatewayError(
        "method-not-allowed",
        `${req.method} is not allowed here; allowed: ${found.allow}`,
        { Allow: found.allow },
      );
    req.params = found.params;
    return found.route(req, res, next);
  });
  app.use(operationalRoutes(loaded, deps.ready));
  if (deps.traceExport) {
    app.post(
      OTLP_TRACES_PATHS,
      otlpTracesRoute({
        authenticator: deps.authenticator,
        limiters,
        export: deps.traceExport,
        maxBodyBytes: deps.config.otlp.maxBodyBytes,
      }),
    );
    app.all(OTLP_TRACES_PATHS, postOnly);
  }

  if (deps.spanWrites && deps.traceExport) {
    app.post(
      PANDAS_ARROW_PATH,
      pandasArrowRoute({
        authenticator: deps.authenticator,
        limiters,
        spans: deps.spanWrites,
        export: deps.traceExport,
        maxBodyBytes: deps.config.otlp.maxBodyBytes,
      }),
    );
    app.all(PANDAS_ARROW_PATH, postOnly);
  }

  app.use((req) => {
    throw new DomainError(
      "resource-not-found",
      `no route for ${req.method} ${requestContext(req).path}`,
    );
  });

  // Express recognizes an error handler by its four parameters.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const ctx = requestContext(req);
    const error = answeredError(err, ctx);
    if (res.headersSent) return next(err);
    sendProblem(res, error, {
      errorsBase: deps.config.errorsBase,
      instance: ctx.path,
      requestId: ctx.requestId,
    });
  });
  return app;
}
