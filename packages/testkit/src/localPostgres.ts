import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { findExecutable } from "./findExecutable.ts";
import { postgresAcceptsQueries } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";
import { spawnProcess } from "./spawnProcess.ts";
import { startOnFreePort } from "./startOnFreePort.ts";
import { throwawayDir } from "./throwawayDir.ts";

const run = promisify(execFile);

/** Settings that trade durability for speed: the cluster is thrown away after the run. */
const testSettings = [
  "listen_addresses=127.0.0.1",
  "unix_socket_directories=",
  "fsync=off",
  "synchronous_commit=off",
  "full_page_writes=off",
  "max_connections=300",
];

export async function startLocalPostgres(): Promise<RunningServer> {
  const binDir = findPostgresBinDir();
  const owner = await serverOwner();
  const dataDir = await throwawayDir("argus-pg-", owner);
  try {
    await run(
      join(binDir, "initdb"),
      [
        "-D",
        dataDir.path,
        "-U",
        "postgres",
        "--auth=trust",
        "--no-sync",
        "-E",
        "UTF8",
        "--locale=C",
      ],
      // The server user may not be allowed into our cwd (e.g. /root).
      { ...owner, cwd: tmpdir() },
    ).catch((err: Error) => {
      throw new Error(`initdb failed in ${dataDir.path}: ${err.message}`, { cause: err });
    });
    const { server, url } = await startOnFreePort(async (port) => {
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      const server = await spawnProcess({
        name: "postgres",
        command: join(binDir, "postgres"),
        args: ["-D", dataDir.path, "-p", String(port), ...testSettings.flatMap((s) => ["-c", s])],
        env: {},
        cwd: tmpdir(),
        ...owner,
        readyWhen: () => postgresAcceptsQueries(url),
      });
      return { server, url };
    });
    return {
      url,
      description: `local postgres ${basename(dirname(binDir))} (${binDir})`,
      async stop() {
        // Immediate shutdown: nothing in this cluster is worth a checkpoint.
        await server.stop("SIGQUIT");
        await dataDir.remove();
      },
    };
  } catch (err) {
    await dataDir.remove();
    throw err;
  }
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
