import {
  type EnvVar,
  grpcTarget,
  int,
  loadConfig,
  oneOf,
  optionalStr,
  secret,
  str,
  url,
} from "@argus/platform";

export const catalogConfigSpec = {
  DATABASE_URL: url("Postgres connection URL", ["postgres:", "postgresql:"]),
  NATS_URL: url("NATS server URL", ["nats:", "tls:"], "nats://127.0.0.1:4222"),
  CATALOG_GRPC_PORT: int("gRPC port", 50052, 0, 65535),
  CATALOG_PROBE_PORT: int("HTTP port for /healthz and /readyz", 9092, 0, 65535),
  ARGUS_PRINCIPAL_SECRET: secret("HMAC key shared with the gateway to sign principals", 32),
  // Spaces belong to identity: the catalog asks it, with the caller's principal, whether a
  // space exists and is visible, synchronously, so a space created a moment ago is usable.
  IDENTITY_GRPC_URL: grpcTarget("gRPC target of the identity service", "127.0.0.1:50051"),
  DATASET_GRPC_URL: optionalGrpcTarget(
    "gRPC target of the dataset service (datasets, experiments); unset: they are never found",
  ),
  ARGUS_EVENTS_STREAM: str("JetStream stream that carries every service's events", "ARGUS_EVENTS"),
  ARGUS_SUBJECT_ROOT: str(
    "first token of event subjects (<root>.<service>.<aggregate>.<EventType>)",
    "argus",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalStr("OTLP/HTTP endpoint for traces and metrics"),
  LOG_LEVEL: oneOf("log level", ["debug", "info", "warn", "error"], "info"),
};

function optionalGrpcTarget(describe: string): EnvVar<string | undefined> {
  const target = grpcTarget(describe);
  return { describe, parse: (raw) => target.parse(raw), default: undefined };
}

export type CatalogConfig = ReturnType<typeof loadCatalogConfig>;

export function loadCatalogConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(catalogConfigSpec, env);
}
