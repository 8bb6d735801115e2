import { Metadata, status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";

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
  "service-unavailable": {
    status: 503,
    title: "Service unavailable",
    grpc: GrpcStatus.UNAVAILABLE,
  },
  "gateway-timeout": { status: 504, title: "Gateway timeout", grpc: GrpcStatus.DEADLINE_EXCEEDED },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

const PROBLEM_TRAILER = "argus-problem-type";

/** An expected failure with a stable problem type and a message safe to show the caller. */
export class DomainError extends Error {
  readonly type: ProblemType;
  constructor(type: ProblemType, detail: string) {
    super(detail);
    this.name = "DomainError";
    this.type = type;
  }
}

export const notFound = (what: string): DomainError =>
  new DomainError("resource-not-found", `${what} not found`);

/** DomainError → gRPC error; anything else becomes INTERNAL with no detail (logged by the caller). */
export function toGrpcError(err: unknown): Partial<ServiceError> & { code: GrpcStatus } {
  const type: ProblemType = err instanceof DomainError ? err.type : "internal-error";
  const metadata = new Metadata();
  metadata.set(PROBLEM_TRAILER, type);
  return {
    code: PROBLEM_TYPES[type].grpc,
    details: err instanceof DomainError ? err.message : "internal error",
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
  switch (e.code) {
    case GrpcStatus.UNAVAILABLE:
      return new DomainError(
        "service-unavailable",
        "a backing service is unavailable; retry later",
      );
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new DomainError("gateway-timeout", "a backing service did not answer in time");
    default:
      return new DomainError("internal-error", "internal error");
  }
}
