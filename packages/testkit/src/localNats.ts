import { rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findExecutable } from "./findExecutable.ts";
import { jetStreamResponds } from "./readiness.ts";
import type { LocalServer } from "./runningServer.ts";
import { spawnProcess } from "./spawnProcess.ts";
import { startOnFreePort } from "./startOnFreePort.ts";
import type { LocalServerOptions } from "./localPostgres.ts";
import { keptDir, throwawayDir } from "./throwawayDir.ts";

export interface LocalNatsOptions extends LocalServerOptions {
  /**
   * Users and permissions (a nats-server `authorization` block): the server then refuses
   * anonymous connections. `probe` is the user the readiness check connects as.
   */
  authorization?: { config: string; probe: { user: string; pass: string } };
}

/** Where ./argus links the pinned nats-server (deploy/tools.sh). */
const PINNED_DIR = fileURLToPath(new URL("../../../.tools/bin", import.meta.url));

/** The pinned nats-server, else the first on PATH (Debian installs into /usr/sbin, off PATH). */
function natsServerBinary(): string {
  const sbin = ["/usr/bin", "/usr/sbin", "/usr/local/bin"];
  const bin = findExecutable("nats-server", sbin, [PINNED_DIR]);
  if (bin === undefined) {
    throw new Error(
      `nats-server not found in ${PINNED_DIR}, on PATH or in /usr/bin, /usr/sbin, /usr/local/bin. ` +
        "Run ./argus (it builds the pinned one), or set NATS_URL.",
    );
  }
  return bin;
}

export async function startLocalNats(opts: LocalNatsOptions = {}): Promise<LocalServer> {
  const bin = natsServerBinary();
  const storeDir = opts.dataDir ? await keptDir(opts.dataDir) : await throwawayDir("argus-nats-");
  try {
    const auth = opts.authorization;
    const configFile = join(storeDir.path, "..", `${basename(storeDir.path)}.auth.conf`);
    if (auth) await writeFile(configFile, auth.config, { mode: 0o600 });
    const start = async (port: number) => {
      const url = `nats://127.0.0.1:${port}`;
      const server = await spawnProcess({
        name: "nats",
        command: bin,
        args: [
          ...(auth ? ["-c", configFile] : []),
          ...["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir.path],
        ],
        env: {},
        readyWhen: () => jetStreamResponds(url, auth?.probe),
      });
      return { server, url };
    };
    const first = opts.port ? await start(opts.port) : await startOnFreePort(start);
    const { url } = first;
    const port = Number(new URL(url).port);
    let server = first.server;
    return {
      url,
      description: `local nats-server (${bin})`,
      pid: () => server.pid,
      async crash() {
        await server.stop("SIGKILL");
      },
      async restart() {
        server = (await start(port)).server;
      },
      async stop() {
        await server.stop("SIGTERM");
        await storeDir.remove();
        if (auth) await rm(configFile, { force: true });
      },
    };
  } catch (err) {
    await storeDir.remove();
    throw err;
  }
}
