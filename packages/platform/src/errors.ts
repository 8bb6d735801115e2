import { Metadata, status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";
import { isUnreachable } from "./untilReachable.ts";

/**
 * The one table of problem types: fragment → HTTP status, title, and the gRPC status a
 * service uses to carry it. Services throw DomainError; the gRPC layer turns it into a
 * status plus the `argus-problem-type` trailer; the gateway turns that into a Problem body.
 */
export const PROBLEM_TYPES = {
  "invalid-request": {
    status: 400,
    title: "Invalid request parameters",
    grpc: GrpcStatus.INVALID_ARGUMENT,
  },
  "authentication-required": {
    status: 401,
    title: "Authentication required",
    grpc: GrpcStatus.UNAUTHENTICATED,
  },
  "access-forbidden": {
    status: 403,
    title: "Access forbidden",
    grpc: GrpcStatus.PERMISSION_DENIED,
  },
  "resource-not-found": { status: 404, title: "Resource not found", grpc: GrpcStatus.NOT_FOUND },
  "method-not-allowed": {
    status: 405,
    title: "Method not allowed",
    grpc: GrpcStatus.UNIMPLEMENTED,
  },
  // 408, 414 and 431 come from the gateway's HTTP layer alone (before any operation runs).
  "request-timeout": {
    status: 408,
    title: "Request timeout",
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
  },
  "resource-conflict": { status: 409, title: "Resource conflict", grpc: GrpcStatus.ALREADY_EXISTS },
  "payload-too-large": { status: 413, title: "Payload too large", grpc: GrpcStatus.OUT_OF_RANGE },
  "uri-too-long": { status: 414, title: "URI too long", grpc: GrpcStatus.OUT_OF_RANGE },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported media type",
    grpc: GrpcStatus.INVALID_ARGUMENT,
  },
  "unprocessable-entity": {
    status: 422,
    title: "Unprocessable Entity",
    grpc: GrpcStatus.FAILED_PRECONDITION,
  },
  "validation-error": {
    status: 422,
    title: "Unprocessable Entity",
    grpc: GrpcStatus.FAILED_PRECONDITION,
  },
  "rate-limit-exceeded": {
    status: 429,
    title: "Rate limit exceeded",
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
  },
  "request-header-fields-too-large": {
    status: 431,
    title: "Request header fields too large",
    grpc: GrpcStatus.OUT_OF_RANGE,
  },
  "internal-error": { status: 500, title: "Internal server error", grpc: GrpcStatus.INTERNAL },
  // A dependency (Postgres, NATS, a backing service) is gone for now: the caller may retry the
  // same request after `retryAfterSeconds` (the Retry-After every 503 carries).
  "service-unavailable": {
    status: 503,
    title: "Service unavailable",
    grpc: GrpcStatus.UNAVAILABLE,
    retryAfterSeconds: 5,
  },
  "gateway-timeout": { status: 504, title: "Gateway timeout", grpc: GrpcStatus.DEADLINE_EXCEEDED },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

/** The Retry-After (seconds) an answer of this type carries; undefined: none. */
export function retryAfterOf(type: ProblemType): number | undefined {
  const t = PROBLEM_TYPES[type];
  return "retryAfterSeconds" in t ? t.retryAfterSeconds : undefined;
}

const PROBLEM_TRAILER = "argus-problem-type";

/** An expected failure with a stable problem type and a message safe to show the caller. */
export class DomainError extends Error {
  readonly type: ProblemType;
  constructor(type: ProblemType, detail: string, options?: ErrorOptions) {
    super(detail, options);
    this.name = "DomainError";
    this.type = type;
  }
}

export const notFound = (what: string): DomainError =>
  new DomainError("resource-not-found", `${what} not found`);

// Beyond "not there yet" (untilReachable): Postgres going away under a session (57P01 an
// operator's or a fast shutdown, 57P02 a crash of another backend), out of connection slots
// (53300), a pool that found no connection in time, a client whose connection broke earlier;
// NATS closed, draining, or with no JetStream to answer.
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "53300"]);
const UNAVAILABLE_MESSAGES =
  /^(timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|Cannot use a pool after calling end on the pool)/;
const UNAVAILABLE_NATS = new Set([
  "ClosedConnectionError",
  "DrainingConnectionError",
  "NoResponders",
]);

/**
 * Whether `err` (or an error it wraps) says a dependency — the database, NATS — is unavailable
 * rather than that the request or the code is wrong: the one test behind every 503 a service
 * answers for its dependencies, on every transport.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (isUnreachable(err)) return true;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (UNAVAILABLE_MESSAGES.test(e.message) || UNAVAILABLE_NATS.has(e.name)) return true;
    e = e.cause;
  }
  return false;
}

/** An unexpected error as logged: its stack, then each cause's (a peer's status behind it). */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; depth++) {
    parts.push(e instanceof Error ? (e.stack ?? e.message) : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join("\ncaused by: ");
}

/** What a dependency's loss is answered with. */
const dependencyUnavailable = (): DomainError =>
  new DomainError("service-unavailable", "a dependency of the service is unavailable; retry later");

/**
 * Anything thrown while serving → the DomainError the caller gets: a DomainError as it is, a
 * dependency's loss as service-unavailable, anything else undefined (internal, unexpected).
 */
export function asDomainError(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  if (isDependencyUnavailable(err)) return dependencyUnavailable();
  return undefined;
}

/**
 * DomainError (or a dependency's loss) → gRPC error; anything else becomes INTERNAL with no
 * detail (logged by the caller).
 */
export function toGrpcError(err: unknown): Partial<ServiceError> & { code: GrpcStatus } {
  const known = asDomainError(err);
  const type: ProblemType = known?.type ?? "internal-error";
  const metadata = new Metadata();
  metadata.set(PROBLEM_TRAILER, type);
  return {
    code: PROBLEM_TYPES[type].grpc,
    details: known ? known.message : "internal error",
    metadata,
  };
}

/** gRPC error from a service call → the DomainError it carried, or the closest transport problem. */
export function fromGrpcError(err: unknown): DomainError {
  const e = err as Partial<ServiceError>;
  const named = e.metadata?.get(PROBLEM_TRAILER)[0];
  if (typeof named === "string" && named in PROBLEM_TYPES) {
    return new DomainError(named as ProblemType, e.details ?? "");
  }
  // The transport's own details (grpc-js names where a call waited: the pick, the peer) stay
  // with the error as its cause, for whoever answers for it to log.
  switch (e.code) {
    case GrpcStatus.UNAVAILABLE:
      return new DomainError(
        "service-unavailable",
        "a backing service is unavailable; retry later",
        { cause: err },
      );
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new DomainError("gateway-timeout", "a backing service did not answer in time", {
        cause: err,
      });
    default:
      // Not a status at all, but a dependency's loss (a caller's own query in the same try).
      if (isDependencyUnavailable(err)) return dependencyUnavailable();
      // A status with no problem trailer (grpc-js's own: a reset stream, an unparsable answer,
      // a cancel): the caller is told no more, but whoever answers for it logs the cause.
      return new DomainError("internal-error", "internal error", { cause: err });
  }
}
