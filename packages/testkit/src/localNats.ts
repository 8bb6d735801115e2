import { findExecutable } from "./findExecutable.ts";
import { jetStreamResponds } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";
import { spawnProcess } from "./spawnProcess.ts";
import { startOnFreePort } from "./startOnFreePort.ts";
import type { LocalServerOptions } from "./localPostgres.ts";
import { keptDir, throwawayDir } from "./throwawayDir.ts";

export async function startLocalNats(opts: LocalServerOptions = {}): Promise<RunningServer> {
  // Debian installs nats-server into /usr/sbin, which is off PATH for non-root users.
  const bin = findExecutable("nats-server", ["/usr/bin", "/usr/sbin", "/usr/local/bin"]);
  if (bin === undefined) {
    throw new Error(
      "nats-server not found on PATH or in /usr/bin, /usr/sbin, /usr/local/bin. " +
        "Install it: apt-get install -y nats-server (or set NATS_URL).",
    );
  }
  const storeDir = opts.dataDir ? await keptDir(opts.dataDir) : await throwawayDir("argus-nats-");
  try {
    const start = async (port: number) => {
      const url = `nats://127.0.0.1:${port}`;
      const server = await spawnProcess({
        name: "nats",
        command: bin,
        args: ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir.path],
        env: {},
        readyWhen: () => jetStreamResponds(url),
      });
      return { server, url };
    };
    const { server, url } = opts.port ? await start(opts.port) : await startOnFreePort(start);
    return {
      url,
      description: `local nats-server (${bin})`,
      async stop() {
        await server.stop("SIGTERM");
        await storeDir.remove();
      },
    };
  } catch (err) {
    await storeDir.remove();
    throw err;
  }
}
