import { status as GrpcStatus } from "@grpc/grpc-js";
import { retryAfterOf, type ProblemType } from "@argus/platform";
import { GatewayError, toDomainError } from "../http/problem.ts";

/** How one OTLP export failed, for either transport to answer with. */
export interface OtlpFailure {
  /** OTLP/HTTP status. */
  http: number;
  /** OTLP/gRPC status, also the `code` of the OTLP/HTTP Status body. */
  grpc: GrpcStatus;
  message: string;
  /** Set on the failures OTLP clients retry: Retry-After (HTTP) or RetryInfo (gRPC). */
  retryAfterSeconds?: number;
  /** Not an expected failure: worth an error log with the request id. */
  unexpected: boolean;
}

/** When a retryable failure carries no hint of its own (a backing service's 429 or 503). */
const DEFAULT_RETRY_AFTER_SECONDS = retryAfterOf("service-unavailable")!;

type Answer = Pick<OtlpFailure, "http" | "grpc"> & { retryable?: true };

const INTERNAL: Answer = { http: 500, grpc: GrpcStatus.INTERNAL };

/**
 * The one table from the gateway's problem types (its own refusals, and backing services'
 * errors as `toDomainError` reads them) to OTLP's answers. OTLP has no 422: data the service
 * cannot take is 400 / INVALID_ARGUMENT, which clients drop rather than retry.
 *
 * A space the key cannot see is 404 / NOT_FOUND, as the REST API answers for spaces: identity
 * says "space not found" for a space that does not exist and for one hidden from the caller
 * alike, so the answer reveals nothing either way; 403 / PERMISSION_DENIED is kept for a space
 * the key sees but may not write spans to (PROJECT_SPAN_CREATE).
 */
const ANSWERS: Partial<Record<ProblemType, Answer>> = {
  "invalid-request": { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  "validation-error": { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  "unprocessable-entity": { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  "authentication-required": { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  "access-forbidden": { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  "resource-not-found": { http: 404, grpc: GrpcStatus.NOT_FOUND },
  // Without RetryInfo an OTLP/gRPC client does not retry RESOURCE_EXHAUSTED: too large stays so.
  "payload-too-large": { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  "unsupported-media-type": { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  "rate-limit-exceeded": { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED, retryable: true },
  "service-unavailable": { http: 503, grpc: GrpcStatus.UNAVAILABLE, retryable: true },
  "gateway-timeout": { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED, retryable: true },
};

/** Anything thrown while serving an export → the OTLP answer. */
export function otlpFailureOf(err: unknown): OtlpFailure {
  const { error, unexpected } = toDomainError(err);
  const answer = ANSWERS[error.type] ?? INTERNAL;
  const hinted = err instanceof GatewayError ? Number(err.headers["Retry-After"]) : NaN;
  return {
    http: answer.http,
    grpc: answer.grpc,
    message: answer === INTERNAL ? "internal error" : error.message,
    ...(answer.retryable
      ? { retryAfterSeconds: Number.isFinite(hinted) ? hinted : DEFAULT_RETRY_AFTER_SECONDS }
      : {}),
    unexpected: unexpected || answer === INTERNAL,
  };
}
