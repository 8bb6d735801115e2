// The management step (the Helm chart's pre-install/upgrade Job; `./argus up`; the test stack):
// 1. the schema migrations of the named services (ARGUS_MIGRATE_SERVICES, comma-separated;
//    default all) against DATABASE_URL. With ARGUS_DB_ROLE_PREFIX set, DATABASE_URL is the
//    migration role's and each schema is migrated as its service's role (`scripts/provision.ts`),
//    so every object belongs to that role. Services also migrate at start, under the same
//    advisory lock, so either order is safe.
// 2. with NATS_URL set: the events stream and every durable consumer the registry declares,
//    as the NATS manager (NATS_USER / NATS_PASSWORD), a right no service holds; each on
//    ARGUS_STREAM_REPLICAS servers (1 to 5, or `auto`, the default: 3 when the server it
//    reaches is part of a cluster, else 1).
import { connect } from "@nats-io/transport-node";
import {
  databaseRoleNames,
  loadMigrations,
  migrate,
  migrationsDirOf,
  provisionMessaging,
} from "../packages/service-host/src/index.ts";
import {
  NATS_MANAGER,
  SERVICE_REGISTRY,
  inboxPrefixOf,
  parseNatsServers,
  plainPool,
} from "../packages/platform/src/index.ts";

const services = Object.fromEntries(
  SERVICE_REGISTRY.map((d) => [
    d.name,
    { SCHEMA: d.schema, migrations: loadMigrations(migrationsDirOf(d.name)) },
  ]),
);

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is required");
  process.exit(2);
}
const wanted = (process.env.ARGUS_MIGRATE_SERVICES ?? Object.keys(services).join(","))
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = wanted.filter((s) => !(s in services));
if (unknown.length > 0) {
  console.error(
    `migrate: unknown service(s) ${unknown.join(", ")}; known: ${Object.keys(services).join(", ")}`,
  );
  process.exit(2);
}
const replicasSetting = (process.env.ARGUS_STREAM_REPLICAS ?? "auto").trim() || "auto";
if (replicasSetting !== "auto" && !/^[1-5]$/.test(replicasSetting)) {
  console.error(`migrate: ARGUS_STREAM_REPLICAS must be 1 to 5 or auto, not ${replicasSetting}`);
  process.exit(2);
}

const prefix = process.env.ARGUS_DB_ROLE_PREFIX;
for (const name of wanted) {
  const svc = services[name]!;
  const role = prefix ? databaseRoleNames(prefix).services[name] : undefined;
  const pool = plainPool({
    connectionString: url,
    max: 2,
    ...(role ? { options: `-c role=${role}` } : {}),
  });
  try {
    await migrate(pool, { schema: svc.SCHEMA, migrations: svc.migrations });
  } finally {
    await pool.end();
  }
  console.log(`migrate: ${name} (schema ${svc.SCHEMA}) is up to date`);
}

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  const user = process.env.NATS_USER;
  const nc = await connect({
    servers: parseNatsServers(natsUrl),
    name: "argus-migrate",
    ...(user
      ? { user, pass: process.env.NATS_PASSWORD ?? "", inboxPrefix: inboxPrefixOf(NATS_MANAGER) }
      : {}),
  });
  try {
    const stream = process.env.ARGUS_EVENTS_STREAM || "ARGUS_EVENTS";
    const subjectRoot = process.env.ARGUS_SUBJECT_ROOT || "argus";
    // A clustered server names its cluster; JetStream wants three servers for a quorum.
    const replicas =
      replicasSetting === "auto" ? (nc.info?.cluster ? 3 : 1) : Number(replicasSetting);
    await provisionMessaging(nc, { stream, subjectRoot, replicas });
    console.log(
      `migrate: stream ${stream} and the registry's consumers are in place (${replicas} replica${replicas === 1 ? "" : "s"})`,
    );
  } finally {
    await nc.close();
  }
}
