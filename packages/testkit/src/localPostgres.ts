import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { findExecutable } from "./findExecutable.ts";
import { postgresAcceptsQueries } from "./readiness.ts";
import type { LocalServer } from "./runningServer.ts";
import { spawnProcess } from "./spawnProcess.ts";
import { startOnFreePort } from "./startOnFreePort.ts";
import { keptDir, throwawayDir } from "./throwawayDir.ts";

const run = promisify(execFile);

/** The superuser is "postgres" whichever OS user runs it; trust auth, as on loopback only. */
const initdbFlags = [
  "--username=postgres",
  "--auth=trust",
  "--no-sync",
  "--encoding=UTF8",
  "--locale=C",
];

/** Settings that trade durability for speed: the cluster is thrown away after the run. */
const testSettings = [
  "listen_addresses=127.0.0.1",
  "unix_socket_directories=",
  "fsync=off",
  "synchronous_commit=off",
  "full_page_writes=off",
  "max_connections=300",
];

export interface LocalServerOptions {
  /** Keep data here across runs instead of a throw-away directory (used by `./argus up`). */
  dataDir?: string;
  /** A fixed port instead of a free one. */
  port?: number;
  /**
   * A throw-away cluster whose commits survive a crash of the server process (fault tests that
   * stop it immediately): synchronous_commit stays on. The fast test settings turn it off,
   * and an immediate shutdown then loses the last commits clients were told of.
   */
  crashSafe?: boolean;
}

export async function startLocalPostgres(opts: LocalServerOptions = {}): Promise<LocalServer> {
  const binDir = findPostgresBinDir();
  const owner = await serverOwner();
  const dataDir = opts.dataDir
    ? await keptDir(opts.dataDir, owner)
    : await throwawayDir("argus-pg-", owner);
  const durable = opts.dataDir !== undefined;
  try {
    if (!existsSync(join(dataDir.path, "PG_VERSION")))
      await run(
        join(binDir, "initdb"),
        ["-D", dataDir.path, ...initdbFlags],
        // The server user may not be allowed into our cwd (e.g. /root).
        { ...owner, cwd: tmpdir() },
      ).catch((err: Error) => {
        // As root, a TMPDIR the postgres user cannot enter is the usual cause.
        const hint = owner ? " (the postgres OS user must be able to reach it; check TMPDIR)" : "";
        throw new Error(`initdb failed in ${dataDir.path}${hint}: ${err.message}`, { cause: err });
      });
    await writeHba(dataDir.path, owner);
    const settings = durable
      ? ["listen_addresses=127.0.0.1", "unix_socket_directories="]
      : opts.crashSafe
        ? testSettings.filter((s) => !s.startsWith("synchronous_commit"))
        : testSettings;
    const start = async (port: number) => {
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      const server = await spawnProcess({
        name: "postgres",
        command: join(binDir, "postgres"),
        args: ["-D", dataDir.path, "-p", String(port), ...settings.flatMap((s) => ["-c", s])],
        env: {},
        cwd: tmpdir(),
        ...owner,
        readyWhen: () => postgresAcceptsQueries(url),
      });
      return { server, url };
    };
    const first = opts.port ? await start(opts.port) : await startOnFreePort(start);
    const { url } = first;
    const port = Number(new URL(url).port);
    let server = first.server;
    return {
      url,
      description: `local postgres ${basename(dirname(binDir))} (${binDir})`,
      pid: () => server.pid,
      async crash() {
        // SIGQUIT: the postmaster's immediate shutdown, what `pg_ctl stop -m immediate` sends.
        await server.stop("SIGQUIT");
      },
      async restart() {
        server = (await start(port)).server;
      },
      async stop() {
        // A kept cluster gets a clean (fast) shutdown; a throw-away one an immediate one.
        await server.stop(durable ? "SIGINT" : "SIGQUIT");
        await dataDir.remove();
      },
    };
  } catch (err) {
    await dataDir.remove();
    throw err;
  }
}

/**
 * Loopback only. The superuser (the operator, the test harness) gets in without a password;
 * every other role — the services' own — must give its password.
 */
async function writeHba(dir: string, owner: { uid: number; gid: number } | undefined) {
  const file = join(dir, "pg_hba.conf");
  await writeFile(
    file,
    [
      "# Written by @argus/testkit at every start.",
      "host all postgres 127.0.0.1/32 trust",
      "host all all 127.0.0.1/32 scram-sha-256",
      "",
    ].join("\n"),
  );
  if (owner) await chown(file, owner.uid, owner.gid);
}

/** The newest /usr/lib/postgresql/<version>/bin (Debian keeps it off PATH), else PATH. */
function findPostgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "postgres")) && existsSync(join(bin, "initdb"))) return bin;
  }
  const onPath = findExecutable("postgres");
  if (onPath && findExecutable("initdb")) return dirname(onPath);
  throw new Error(
    "No Postgres server binaries (initdb, postgres) in /usr/lib/postgresql/*/bin or on PATH. " +
      "Install them (apt-get install -y postgresql), or set DATABASE_URL.",
  );
}

/** Postgres refuses to run as root, so as root we run it as the `postgres` OS user. */
async function serverOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([
      run("id", ["-u", "postgres"]),
      run("id", ["-g", "postgres"]),
    ]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch (err) {
    throw new Error(
      "Running as root, but there is no `postgres` OS user to run Postgres as " +
        "(apt-get install -y postgresql creates it; or useradd --system --user-group postgres).",
      { cause: err },
    );
  }
}
