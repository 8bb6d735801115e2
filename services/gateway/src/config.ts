import type { KeyObject } from "node:crypto";
import {
  GATEWAY,
  MAX_GRPC_MESSAGE_BYTES,
  SERVICE_REGISTRY,
  keyEnv,
  privateKeyVar,
  serviceEnv,
  grpcTarget,
  int,
  loadConfig,
  oneOf,
  optionalNatsServers,
  optionalStr,
  secret,
  str,
  url,
  type Level,
} from "@argus/platform";

export interface GatewayConfig {
  httpHost: string;
  httpPort: number;
  /**
   * On stop, how long REST answers say `Connection: close` before idle connections are closed
   * (http/drain.ts); it ends early once no connection is left.
   */
  httpDrainMs: number;
  /** gRPC target of every service in the registry, by name. */
  grpcUrls: Readonly<Record<string, string>>;
  /**
   * The gateway's Ed25519 private key (GATEWAY_PRIVATE_KEY): it alone signs callers'
   * principals, which services verify with its public key.
   */
  privateKey: KeyObject;
  cursorSecret: string;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /**
   * Token bucket per client address for requests that do not authenticate (no key, a key
   * refused locally, a key identity does not know); successful ones are never charged.
   */
  unauthRateLimitPerSecond: number;
  unauthRateLimitBurst: number;
  maxBodyBytes: number;
  /** Deadline of each request's gRPC calls (retries included); services pass on what remains. */
  grpcDeadlineMs: number;
  /**
   * How long a request sent with an Idempotency-Key is held in flight (a retry meanwhile is
   * 409) before another attempt may take it over, its gateway presumed gone.
   */
  idempotencyLeaseMs: number;
  /** Problem `type` values are `${errorsBase}#<fragment>`. */
  errorsBase: string;
  logLevel: Level;
  /** OTLP trace ingestion (otlp/): OTLP/HTTP `POST /v1/traces` and OTLP/gRPC TraceService. */
  otlp: {
    /** Largest OTLP request body, on the wire and decompressed alike (HTTP and gRPC). */
    maxBodyBytes: number;
    /** Port of the OTLP/gRPC listener (on `httpHost`); 0: no OTLP/gRPC listener. */
    grpcPort: number;
  };
  /** The Arrow Flight endpoint (flight/): its own port, and the REST port's HTTP/2 side. */
  flight: {
    /** Port of the Flight listener (on `httpHost`); 0: none (the REST port still serves it). */
    port: number;
    /** Largest gRPC message a Flight (or single-port) call may send: one Arrow batch. */
    maxMessageBytes: number;
  };
  /**
   * The principal cache (docs/architecture.md, "Principal cache and invalidation"): without
   * `nats` (NATS_URL unset) or with `maxEntries` 0 there is none and every request asks
   * identity; invalidations arrive on `principalInvalidationSubject(subjectRoot)`.
   */
  principalCache: {
    nats: { servers: string[]; user: { user: string; pass: string } | undefined } | undefined;
    subjectRoot: string;
    maxEntries: number;
    maxTtlMs: number;
  };
}

const spec = {
  ARGUS_HTTP_HOST: str("address the REST listener binds (0.0.0.0 in a pod)", "127.0.0.1"),
  ARGUS_HTTP_PORT: int("port of the REST listener", 8080, 0, 65_535),
  ARGUS_HTTP_DRAIN_MS: int(
    "on stop, milliseconds answers say Connection: close before idle connections are closed",
    2_000,
    0,
    60_000,
  ),
  ...Object.fromEntries(
    SERVICE_REGISTRY.map((d) => [
      serviceEnv(d.name).grpcUrl,
      grpcTarget(`gRPC target of the ${d.name} service`, `127.0.0.1:${d.grpcPort}`),
    ]),
  ),
  [keyEnv(GATEWAY.name).privateKey]: privateKeyVar(
    "Ed25519 private key (PEM or base64 PKCS#8) signing the caller's principal into each gRPC call",
  ),
  ARGUS_CURSOR_SECRET: secret("HMAC key signing pagination cursors", 32),
  ARGUS_RATE_LIMIT_PER_SECOND: int("requests per second refilled per API key", 50, 1, 1_000_000),
  ARGUS_RATE_LIMIT_BURST: int("token bucket capacity per API key", 100, 1, 1_000_000),
  ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND: int(
    "failed authentications per second refilled per client address",
    10,
    1,
    1_000_000,
  ),
  ARGUS_UNAUTH_RATE_LIMIT_BURST: int(
    "token bucket capacity of failed authentications per client address",
    20,
    1,
    1_000_000,
  ),
  ARGUS_MAX_BODY_BYTES: int("largest accepted request body in bytes", 1_048_576, 1, 104_857_600),
  ARGUS_GRPC_DEADLINE_MS: int("deadline of each gRPC call in milliseconds", 5_000, 1, 600_000),
  // Above a request's usual length (a few calls of ARGUS_GRPC_DEADLINE_MS); a request that
  // outlives it is still applied once, since the service that applies it records the key.
  ARGUS_IDEMPOTENCY_LEASE_MS: int(
    "milliseconds a request with an Idempotency-Key stays in flight before a retry may take it over",
    15_000,
    1_000,
    600_000,
  ),
  ARGUS_ERRORS_BASE: url(
    "base URI of problem types",
    ["https:", "http:"],
    "https://argus.dev/errors",
  ),
  LOG_LEVEL: oneOf("log level", ["debug", "info", "warn", "error"], "info"),
  ARGUS_OTLP_MAX_BODY_BYTES: int(
    "largest OTLP trace export in bytes, compressed or not (OTLP/HTTP and OTLP/gRPC)",
    16 * 1024 * 1024,
    1,
    // The body travels to tracing in one gRPC message, with a few bytes of framing around it.
    MAX_GRPC_MESSAGE_BYTES - 64 * 1024,
  ),
  ARGUS_OTLP_GRPC_PORT: int("port of the OTLP/gRPC trace listener; 0: none", 4317, 0, 65_535),
  ARGUS_FLIGHT_PORT: int(
    "port of the Arrow Flight listener; 0: none (the REST port serves Flight over HTTP/2 too)",
    8815,
    0,
    65_535,
  ),
  ARGUS_FLIGHT_MAX_MESSAGE_BYTES: int(
    "largest gRPC message of a Flight call in bytes (one Arrow record batch)",
    512 * 1024 * 1024,
    1024,
    2 ** 31 - 1,
  ),
  NATS_URL: optionalNatsServers(
    "NATS server URL (or each server's, separated by commas) for principal-cache invalidations; unset: no cache",
  ),
  NATS_USER: optionalStr("the gateway's NATS user (it may only receive invalidations)"),
  NATS_PASSWORD: optionalStr("password of NATS_USER"),
  ARGUS_SUBJECT_ROOT: str(
    "subject root of the deployment (invalidations: <root>-principals.*)",
    "argus",
  ),
  ARGUS_PRINCIPAL_CACHE_MAX_ENTRIES: int(
    "principals the gateway caches at most (least recently used out first); 0: no cache",
    10_000,
    0,
    10_000_000,
  ),
  ARGUS_PRINCIPAL_CACHE_TTL_MS: int(
    "longest a cached principal is served, in milliseconds (invalidation aside)",
    60_000,
    1,
    3_600_000,
  ),
};

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const c = loadConfig(spec, env);
  const all = c as unknown as Record<string, unknown>;
  return {
    httpHost: c.ARGUS_HTTP_HOST,
    httpPort: c.ARGUS_HTTP_PORT,
    httpDrainMs: c.ARGUS_HTTP_DRAIN_MS,
    grpcUrls: Object.fromEntries(
      SERVICE_REGISTRY.map((d) => [d.name, all[serviceEnv(d.name).grpcUrl] as string]),
    ),
    privateKey: all[keyEnv(GATEWAY.name).privateKey] as KeyObject,
    cursorSecret: c.ARGUS_CURSOR_SECRET,
    rateLimitPerSecond: c.ARGUS_RATE_LIMIT_PER_SECOND,
    rateLimitBurst: c.ARGUS_RATE_LIMIT_BURST,
    unauthRateLimitPerSecond: c.ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND,
    unauthRateLimitBurst: c.ARGUS_UNAUTH_RATE_LIMIT_BURST,
    maxBodyBytes: c.ARGUS_MAX_BODY_BYTES,
    grpcDeadlineMs: c.ARGUS_GRPC_DEADLINE_MS,
    idempotencyLeaseMs: c.ARGUS_IDEMPOTENCY_LEASE_MS,
    errorsBase: c.ARGUS_ERRORS_BASE.replace(/\/+$/, ""),
    logLevel: c.LOG_LEVEL,
    otlp: { maxBodyBytes: c.ARGUS_OTLP_MAX_BODY_BYTES, grpcPort: c.ARGUS_OTLP_GRPC_PORT },
    flight: {
      port: c.ARGUS_FLIGHT_PORT,
      maxMessageBytes: c.ARGUS_FLIGHT_MAX_MESSAGE_BYTES,
    },
    principalCache: {
      nats: c.NATS_URL
        ? {
            servers: c.NATS_URL,
            user: c.NATS_USER ? { user: c.NATS_USER, pass: c.NATS_PASSWORD ?? "" } : undefined,
          }
        : undefined,
      subjectRoot: c.ARGUS_SUBJECT_ROOT,
      maxEntries: c.ARGUS_PRINCIPAL_CACHE_MAX_ENTRIES,
      maxTtlMs: c.ARGUS_PRINCIPAL_CACHE_TTL_MS,
    },
  };
}
