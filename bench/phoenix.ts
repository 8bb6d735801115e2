import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, spawnProcess, type SpawnedProcess } from "@argus/testkit";

const root = fileURLToPath(new URL("../", import.meta.url));

/**
 * The virtualenv `./argus bench --only peer` installs Phoenix into (`ensure_phoenix` in the
 * `argus` script, which pins the version and passes the directory as ARGUS_PHOENIX_VENV).
 */
export function phoenixVenv(): { dir: string; python: string; requirement: string } {
  const given = process.env.ARGUS_PHOENIX_VENV;
  if (!given) {
    throw new Error(
      "ARGUS_PHOENIX_VENV is not set: run the peer benchmark as `./argus bench --only peer`, " +
        "which installs the pinned arize-phoenix into .tools/ and names it",
    );
  }
  const dir = resolve(root, given);
  const marker = join(dir, ".installed");
  if (!existsSync(marker)) throw new Error(`${dir} holds no complete Phoenix install`);
  // Through the venv's interpreter rather than its `phoenix` script, whose shebang names the
  // path the venv was made at (a worktree may reach .tools through a symlink).
  return {
    dir,
    python: join(dir, "bin", "python"),
    requirement: readFileSync(marker, "utf8").trim(),
  };
}

export interface Phoenix {
  baseUrl: string;
  /** `Authorization: Bearer <SYSTEM key>` with authentication on; nothing with it off. */
  headers: Record<string, string>;
  auth: boolean;
  pid: number;
  stop(): Promise<void>;
}

/** At least 32 characters with a digit and a lowercase letter, as PHOENIX_SECRET must be. */
const phoenixSecret = () => `s3cr3t-${randomBytes(24).toString("hex")}`;

/**
 * `phoenix serve` on its own HTTP and OTLP/gRPC ports (127.0.0.1, free ones), on the Postgres
 * database `databaseUrl` (its migrations run at start), logging warnings only (as the Argus
 * stack in a benchmark). With `auth`, PHOENIX_ENABLE_AUTH and a fresh secret, and a SYSTEM API
 * key made the way Phoenix documents it: the default admin logs in and creates it through
 * `POST /v1/system/api_keys`. The same database can be served again with the other mode.
 */
export async function startPhoenix(opts: { databaseUrl: string; auth: boolean }): Promise<Phoenix> {
  const venv = phoenixVenv();
  const [port, grpcPort] = [await freePort(), await freePort()];
  const workDir = await mkdtemp(join(tmpdir(), "argus-phoenix-"));
  const removeWorkDir = () => rm(workDir, { recursive: true, force: true, maxRetries: 3 });
  const adminPassword = `Admin-${randomBytes(12).toString("hex")}-1`;
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PHOENIX_HOST: "127.0.0.1",
    PHOENIX_PORT: String(port),
    PHOENIX_GRPC_PORT: String(grpcPort),
    PHOENIX_SQL_DATABASE_URL: postgresqlUrl(opts.databaseUrl),
    PHOENIX_WORKING_DIR: workDir,
    PHOENIX_TELEMETRY_ENABLED: "false",
    PHOENIX_LOGGING_LEVEL: "warning",
    // As the Argus stack runs in a benchmark: no rate limit is what is measured.
    PHOENIX_DISABLE_RATE_LIMIT: "true",
    PHOENIX_ENABLE_AUTH: String(opts.auth),
    ...(opts.auth
      ? { PHOENIX_SECRET: phoenixSecret(), PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD: adminPassword }
      : {}),
  };
  let server: SpawnedProcess;
  try {
    server = await spawnProcess({
      name: "phoenix",
      command: venv.python,
      args: ["-m", "phoenix.server.main", "serve"],
      env,
      cwd: workDir,
      readyWhen: async () => (await fetch(`${baseUrl}/readyz`)).ok,
      // Migrations on a fresh database take a while on a busy 2-core machine.
      timeoutMs: 300_000,
    });
  } catch (err) {
    await removeWorkDir();
    throw err;
  }
  const stop = async () => {
    await server.stop("SIGINT");
    await removeWorkDir();
  };
  try {
    const headers: Record<string, string> = opts.auth
      ? { authorization: `Bearer ${await systemApiKey(baseUrl, adminPassword)}` }
      : {};
    return { baseUrl, headers, auth: opts.auth, pid: server.pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Phoenix's SQLAlchemy URL wants the `postgresql` scheme (`postgres://` is not a dialect). */
function postgresqlUrl(url: string): string {
  return url.replace(/^postgres(ql)?:\/\//, "postgresql://");
}

/**
 * A SYSTEM API key, as an administrator makes one: the default admin (admin@localhost, the
 * initial password from PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD) logs in, and its session
 * creates the key with `POST /v1/system/api_keys` (an API key cannot mint keys).
 */
async function systemApiKey(baseUrl: string, password: string): Promise<string> {
  const login = await fetch(`${baseUrl}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@localhost", password }),
  });
  if (login.status !== 204 && login.status !== 200) {
    throw new Error(`Phoenix login: ${login.status} ${await login.text()}`);
  }
  const cookies = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
  const created = await fetch(`${baseUrl}/v1/system/api_keys`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookies },
    body: JSON.stringify({ data: { name: "argus-peer-bench" } }),
  });
  const text = await created.text();
  if (created.status !== 201) throw new Error(`Phoenix system API key: ${created.status} ${text}`);
  const key = (JSON.parse(text) as { data?: { key?: unknown } }).data?.key;
  if (typeof key !== "string") throw new Error(`Phoenix system API key: no key in ${text}`);
  return key;
}
