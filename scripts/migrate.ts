// Runs the schema migrations of the named services (ARGUS_MIGRATE_SERVICES, comma-separated;
// default all) against DATABASE_URL. The Helm chart runs it as a pre-install/upgrade Job;
// services also migrate at start, under the same advisory lock, so either order is safe.
import pg from "pg";
import { loadMigrations, migrate, migrationsDirOf } from "../packages/eventstore/src/index.ts";
import { SERVICE_REGISTRY } from "../packages/platform/src/index.ts";

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
const pool = new pg.Pool({ connectionString: url, max: 2 });
try {
  for (const name of wanted) {
    const svc = services[name]!;
    await migrate(pool, { schema: svc.SCHEMA, migrations: svc.migrations });
    console.log(`migrate: ${name} (schema ${svc.SCHEMA}) is up to date`);
  }
} finally {
  await pool.end();
}
