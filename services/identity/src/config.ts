import {
  type EnvVar,
  int,
  loadConfig,
  oneOf,
  optionalSecret,
  optionalStr,
  secret,
  str,
  url,
} from "@argus/platform";

export const identityConfigSpec = {
  DATABASE_URL: url("Postgres connection URL", ["postgres:", "postgresql:"]),
  NATS_URL: url("NATS server URL", ["nats:", "tls:"], "nats://127.0.0.1:4222"),
  IDENTITY_GRPC_PORT: int("gRPC port", 50051, 0, 65535),
  IDENTITY_PROBE_PORT: int("HTTP port for /healthz and /readyz", 9091, 0, 65535),
  ARGUS_PRINCIPAL_SECRET: secret("HMAC key shared with the gateway to sign principals", 32),
  ARGUS_API_KEY_PEPPER: secret("HMAC key under which API keys are hashed", 32),
  ARGUS_INIT_ORG_NAME: str(
    "organization created by headless initialization",
    "Default Organization",
  ),
  ARGUS_INIT_SPACE_NAME: str("space created by headless initialization", "Default Space"),
  ARGUS_INIT_ADMIN_EMAIL: str("e-mail of the initial admin user", "admin@argus.local"),
  ARGUS_INIT_ADMIN_NAME: str("name of the initial admin user", "Admin"),
  ARGUS_INIT_API_KEY: headerSafe(
    optionalSecret("raw USER API key of the initial admin; initialization runs only when set", 32),
  ),
  ARGUS_EVENTS_STREAM: str("JetStream stream that carries every service's events", "ARGUS_EVENTS"),
  ARGUS_SUBJECT_ROOT: str(
    "first token of event subjects (<root>.<service>.<aggregate>.<EventType>)",
    "argus",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalStr("OTLP/HTTP endpoint for traces and metrics"),
  LOG_LEVEL: oneOf("log level", ["debug", "info", "warn", "error"], "info"),
};

/** The key travels in an Authorization header: printable ASCII, no edge spaces, at most 512. */
function headerSafe(v: EnvVar<string | undefined>): EnvVar<string | undefined> {
  return {
    ...v,
    parse: (raw) => {
      if (!/^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/.test(raw) || raw.length > 512) {
        throw new Error(
          "must be printable ASCII without leading or trailing spaces, at most 512 characters",
        );
      }
      return v.parse(raw);
    },
  };
}

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>;

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(identityConfigSpec, env);
}
