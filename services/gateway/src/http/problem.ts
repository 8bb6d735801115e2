import type { Response } from "express";
import type { Span } from "@opentelemetry/api";
import {
  DomainError,
  PROBLEM_TYPES,
  asDomainError,
  describeError,
  fromGrpcError,
  retryAfterOf,
  type Logger,
  type ProblemType,
} from "@argus/platform";

/** A DomainError the gateway raises itself that also sets response headers (Allow, Retry-After). */
export class GatewayError extends DomainError {
  readonly headers: Readonly<Record<string, string>>;
  constructor(type: ProblemType, detail: string, headers: Record<string, string>) {
    super(type, detail);
    this.name = "GatewayError";
    this.headers = headers;
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  request_id: string;
}

export interface ProblemContext {
  errorsBase: string;
  /** The request path. */
  instance: string;
  requestId: string;
}

export function problemBody(err: DomainError, ctx: ProblemContext): Problem {
  const t = PROBLEM_TYPES[err.type];
  return {
    type: `${ctx.errorsBase}#${err.type}`,
    title: t.title,
    status: t.status,
    detail: err.message || t.title,
    instance: ctx.instance,
    request_id: ctx.requestId,
  };
}

const isGrpcError = (e: unknown): boolean =>
  typeof e === "object" &&
  e !== null &&
  typeof (e as { code?: unknown }).code === "number" &&
  "metadata" in e;

// Express and its router raise http-errors (e.g. an undecodable path parameter); `expose`
// marks the ones whose message is meant for the client.
const httpErrorTypes: Record<number, ProblemType> = {
  413: "payload-too-large",
  415: "unsupported-media-type",
};

export interface Translated {
  error: DomainError;
  /** Not an expected failure: log it with the request id. */
  unexpected: boolean;
}

/** Anything thrown on the request path → the DomainError to answer with. */
export function toDomainError(err: unknown): Translated {
  if (err instanceof DomainError) return { error: err, unexpected: false };
  if (!isGrpcError(err)) {
    // The gateway's own dependency gone (its NATS, a socket): 503 like a service's.
    const known = asDomainError(err);
    if (known) return { error: known, unexpected: false };
  }
  if (isGrpcError(err)) {
    const error = fromGrpcError(err);
    return { error, unexpected: error.type === "internal-error" };
  }
  const h = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof h.status === "number" && h.status >= 400 && h.status < 500 && h.expose === true) {
    return {
      error: new DomainError(httpErrorTypes[h.status] ?? "invalid-request", String(h.message)),
      unexpected: false,
    };
  }
  return { error: new DomainError("internal-error", "internal error"), unexpected: true };
}

/**
 * `toDomainError` for whoever answers a failure, logged as it must be: an unexpected one as an
 * error with its stack (and on the span), a backing service gone or late (a 5xx with the
 * transport's cause) as a warning that says where it waited. REST and Flight answer through it.
 */
export function answeredError(err: unknown, ctx: { logger: Logger; span: Span }): DomainError {
  const { error, unexpected } = toDomainError(err);
  if (unexpected) {
    ctx.logger.error("unhandled error", { error: describeError(err) });
    if (err instanceof Error) ctx.span.recordException(err);
  } else if (error.cause instanceof Error && PROBLEM_TYPES[error.type].status >= 500) {
    ctx.logger.warn("backing service failed", { type: error.type, cause: error.cause.message });
  }
  return error;
}

/** The content type of every Problem the gateway answers with (RFC 9457). */
export const PROBLEM_CONTENT_TYPE = "application/problem+json; charset=utf-8";

export function sendProblem(res: Response, err: DomainError, ctx: ProblemContext): void {
  const body = problemBody(err, ctx);
  if (err instanceof GatewayError) res.set(err.headers);
  // A dependency that is away (503): the client may send the same request again after this.
  const retryAfter = retryAfterOf(err.type);
  if (retryAfter !== undefined && !res.get("Retry-After"))
    res.set("Retry-After", String(retryAfter));
  // RFC 9110: a 401 names the scheme that would succeed.
  if (body.status === 401) res.set("WWW-Authenticate", 'Bearer realm="argus"');
  res.status(body.status).set("Content-Type", PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}
