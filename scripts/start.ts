// `./argus up`: the whole stack on this machine. Uses DATABASE_URL (a superuser's) / NATS_URL
// when given, otherwise runs Postgres and nats-server itself with their data under .data/; keeps
// the generated secrets, the initial API key and every service's database and NATS passwords in
// .data/secrets.json so restarts keep working. The Ed25519 keys that sign gRPC calls are made
// afresh on each start (the stack makes them, each process gets only its own): nothing signed
// with them outlives a minute, so there is nothing to keep.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  NATS_MANAGER,
  SERVICE_REGISTRY,
  generateCallKeys,
  natsAuthorizationConfig,
  natsIdentities,
} from "@argus/platform";
import {
  startLocalNats,
  startLocalPostgres,
  startStack,
  type NatsAccess,
  type RunningServer,
} from "@argus/testkit";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = process.env.ARGUS_DATA_DIR ?? join(root, ".data");
mkdirSync(dataDir, { recursive: true, mode: 0o755 });

interface Secrets {
  ARGUS_API_KEY_PEPPER: string;
  ARGUS_SECRETS_KEY: string;
  ARGUS_CURSOR_SECRET: string;
  ARGUS_INIT_API_KEY: string;
  /** Passwords of the database roles (per service, and `migrate`). */
  database: Record<string, string>;
  /** Passwords of the NATS identities (per service, the gateway's and the manager's). */
  nats: Record<string, string>;
}

const stream = process.env.ARGUS_EVENTS_STREAM ?? "ARGUS_EVENTS";
const subjectRoot = process.env.ARGUS_SUBJECT_ROOT ?? "argus";
const identities = natsIdentities({ root: subjectRoot, stream });

function loadSecrets(): Secrets {
  const file = join(dataDir, "secrets.json");
  const kept: Partial<Secrets> = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Secrets>)
    : {};
  const make = () => randomBytes(32).toString("base64url");
  const secrets: Secrets = {
    ARGUS_API_KEY_PEPPER: process.env.ARGUS_API_KEY_PEPPER ?? kept.ARGUS_API_KEY_PEPPER ?? make(),
    ARGUS_CURSOR_SECRET: process.env.ARGUS_CURSOR_SECRET ?? kept.ARGUS_CURSOR_SECRET ?? make(),
    ARGUS_SECRETS_KEY: process.env.ARGUS_SECRETS_KEY ?? kept.ARGUS_SECRETS_KEY ?? make(),
    ARGUS_INIT_API_KEY: process.env.ARGUS_INIT_API_KEY ?? kept.ARGUS_INIT_API_KEY ?? `ak-${make()}`,
    database: Object.fromEntries(
      [...SERVICE_REGISTRY.map((d) => d.name), "migrate"].map((n) => [
        n,
        kept.database?.[n] ?? make(),
      ]),
    ),
    nats: Object.fromEntries(identities.map((i) => [i.user, kept.nats?.[i.user] ?? make()])),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

// Infrastructure keeps fixed colours; each process of the registry takes the next one.
const colors: Record<string, number> = {
  postgres: 34,
  nats: 33,
  migrate: 32,
  gateway: 36,
  supervisor: 31,
};
const palette = [35, 92, 95, 93, 96, 91];
SERVICE_REGISTRY.forEach((d, i) => (colors[d.name] = palette[i % palette.length]!));

/** `[name] {json log}` → `name     | 12:00:01 info  message key=value`, readable at a glance. */
function show(line: string): void {
  const m = /^\[([^\]]+)\] (.*)$/.exec(line);
  const name = m?.[1] ?? "argus";
  let text = m?.[2] ?? line;
  try {
    const { time, level, msg, service: _s, ...rest } = JSON.parse(text) as Record<string, unknown>;
    const fields = Object.entries(rest)
      .filter(([k]) => k !== "trace_id" && k !== "span_id")
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(" ");
    text = `${String(time).slice(11, 19)} ${String(level).padEnd(5)} ${String(msg)} ${fields}`;
  } catch {
    // Not JSON (e.g. Postgres's own log lines): shown as it is.
  }
  process.stdout.write(`\x1b[${colors[name] ?? 37}m${name.padEnd(9)}|\x1b[0m ${text}\n`);
}

async function infra(servers: RunningServer[]): Promise<{ databaseUrl: string; nats: NatsAccess }> {
  let databaseUrl = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  let nats: NatsAccess | undefined = natsUrl ? { url: natsUrl } : undefined;
  if (!databaseUrl) {
    const pg = await startLocalPostgres({
      dataDir: join(dataDir, "postgres"),
      port: Number(process.env.ARGUS_LOCAL_PG_PORT ?? 15432),
    });
    servers.push(pg);
    databaseUrl = pg.url;
    show(`[postgres] ${pg.description} at ${pg.url} (data in ${join(dataDir, "postgres")})`);
  }
  if (!nats) {
    // One identity per service, derived from the registry; anonymous clients are refused.
    const local = await startLocalNats({
      dataDir: join(dataDir, "nats"),
      port: Number(process.env.ARGUS_LOCAL_NATS_PORT ?? 14222),
      authorization: {
        config: natsAuthorizationConfig(identities, secrets.nats),
        probe: { user: NATS_MANAGER, pass: secrets.nats[NATS_MANAGER]! },
      },
    });
    servers.push(local);
    nats = {
      url: local.url,
      users: Object.fromEntries(
        identities.map((i) => [i.user, { user: i.user, pass: secrets.nats[i.user]! }]),
      ),
    };
    show(`[nats] ${local.description} at ${local.url} (data in ${join(dataDir, "nats")})`);
  }
  return { databaseUrl, nats };
}

const secrets = loadSecrets();
const servers: RunningServer[] = [];
const stopServers = () => Promise.allSettled(servers.map((s) => s.stop()));
const { databaseUrl, nats } = await infra(servers).catch(async (err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  await stopServers();
  process.exit(1);
});

const httpPort = Number(process.env.ARGUS_HTTP_PORT ?? 8080);
const stack = await startStack({
  databaseUrl,
  nats,
  database: { rolePrefix: "argus", passwords: secrets.database },
  apiKey: secrets.ARGUS_INIT_API_KEY,
  callKeys: generateCallKeys(),
  httpPort,
  env: {
    ARGUS_API_KEY_PEPPER: secrets.ARGUS_API_KEY_PEPPER,
    ARGUS_CURSOR_SECRET: secrets.ARGUS_CURSOR_SECRET,
    ARGUS_SECRETS_KEY: secrets.ARGUS_SECRETS_KEY,
    ...(process.env.ARGUS_SECRETS_KEY_PREVIOUS
      ? { ARGUS_SECRETS_KEY_PREVIOUS: process.env.ARGUS_SECRETS_KEY_PREVIOUS }
      : {}),
    ARGUS_INIT_API_KEY: secrets.ARGUS_INIT_API_KEY,
    ARGUS_EVENTS_STREAM: stream,
    ARGUS_SUBJECT_ROOT: subjectRoot,
    // OTLP/gRPC on its documented port (ARGUS_OTLP_GRPC_PORT chooses another; 0: none).
    ARGUS_OTLP_GRPC_PORT: process.env.ARGUS_OTLP_GRPC_PORT ?? "4317",
    // Arrow Flight on its documented port (the REST port serves it too; 0: no port of its own).
    ARGUS_FLIGHT_PORT: process.env.ARGUS_FLIGHT_PORT ?? "8815",
  },
  onLine: show,
  // A process that dies (a crash, kill -9) is started again, its exit logged; Ctrl-C stops all.
  supervise: true,
}).catch(async (err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  await stopServers();
  process.exit(1);
});

console.log(`
  Argus is up.
    base URL   ${stack.baseUrl}/v2      (API docs: ${stack.baseUrl}/v2/docs)
    API key    ${stack.apiKey}
               (kept in .data/secrets.json; set ARGUS_INIT_API_KEY to choose your own)

    curl -H "Authorization: Bearer ${stack.apiKey}" ${stack.baseUrl}/v2/spaces

    traces     OTLP/HTTP ${stack.baseUrl}/v1/traces, OTLP/gRPC ${stack.otlpGrpcAddress}
               (headers: authorization = the API key, arize-space-id = a space id)
    flight     Arrow Flight grpc://${stack.flightAddress}, or ${stack.baseUrl.replace("http://", "grpc://")}
               (the official SDK's bulk paths; one address: ARIZE_SINGLE_HOST/ARIZE_SINGLE_PORT)

  Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log("\n  stopping...");
    void stack
      .stop()
      .then(stopServers)
      .finally(() => process.exit(0));
  });
}
