// `./argus admin-key <admin e-mail> [key name]`: break-glass for the stack `./argus up` runs
// (see services/identity/src/adminKey.ts). Reads the database password and the pepper from
// .data/secrets.json; starts the kept local Postgres for the moment if it is not running.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startLocalPostgres, type RunningServer } from "@argus/testkit";
import { connectClient } from "@argus/platform";

const root = fileURLToPath(new URL("..", import.meta.url));
const dataDir = process.env.ARGUS_DATA_DIR ?? join(root, ".data");
const file = join(dataDir, "secrets.json");
if (!existsSync(file)) {
  console.error(`admin-key: ${file} not found: run ./argus up once first`);
  process.exit(2);
}
const secrets = JSON.parse(readFileSync(file, "utf8")) as {
  ARGUS_API_KEY_PEPPER: string;
  database: Record<string, string>;
};
const port = Number(process.env.ARGUS_LOCAL_PG_PORT ?? 15432);
const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;

async function reachable(url: string): Promise<boolean> {
  try {
    const c = await connectClient({ connectionString: url, connectionTimeoutMillis: 1_000 });
    await c.end().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

let started: RunningServer | undefined;
if (!process.env.DATABASE_URL && !(await reachable(admin)))
  started = await startLocalPostgres({ dataDir: join(dataDir, "postgres"), port });
try {
  const url =
    process.env.DATABASE_URL ??
    `postgres://argus_identity:${encodeURIComponent(secrets.database.identity ?? "")}@127.0.0.1:${port}/postgres`;
  const res = spawnSync(
    process.execPath,
    ["services/identity/src/adminKey.ts", ...process.argv.slice(2)],
    {
      cwd: root,
      stdio: "inherit",
      env: {
        PATH: process.env.PATH ?? "",
        DATABASE_URL: url,
        ARGUS_API_KEY_PEPPER: process.env.ARGUS_API_KEY_PEPPER ?? secrets.ARGUS_API_KEY_PEPPER,
        ...(process.env.ARGUS_DB_ROLE_PREFIX
          ? { ARGUS_DB_ROLE_PREFIX: process.env.ARGUS_DB_ROLE_PREFIX }
          : {}),
      },
    },
  );
  process.exitCode = res.status ?? 1;
} finally {
  await started?.stop();
}
