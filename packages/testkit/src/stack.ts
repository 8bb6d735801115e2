import { randomBytes } from "node:crypto";
import { GATEWAY, SERVICE_REGISTRY, entryOf, serviceEnv } from "@argus/platform";
import { fileURLToPath } from "node:url";
import { freePort } from "./freePort.ts";
import { spawnProcess, type SpawnedProcess } from "./spawnProcess.ts";
import { uniqueName } from "./uniqueName.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

export interface StackOptions {
  databaseUrl: string;
  natsUrl: string;
  /** Raw initial admin key; random when omitted. */
  apiKey?: string;
  /** Fixed gateway port; a free one when omitted. */
  httpPort?: number;
  /** Extra environment for every process (e.g. low rate limits, fixed secrets). */
  env?: Record<string, string>;
  /** Show each process's output live, one prefixed line at a time. */
  onLine?: (line: string) => void;
}

export interface Stack {
  baseUrl: string;
  apiKey: string;
  /** The environment every process was started with (secrets included: tests need them). */
  env: Record<string, string>;
  processes: Record<string, SpawnedProcess>;
  /** Stops a process and starts it again, with the same environment plus `env`. */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

const secret = () => randomBytes(32).toString("base64url");

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  return res.ok;
}

/**
 * The whole stack as separate processes: every service of the registry (in its order, which
 * puts a service after those it calls), then the gateway.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const httpPort = opts.httpPort ?? (await freePort());
  const apiKey = opts.apiKey ?? `ak-test-${secret()}`;
  const env: Record<string, string> = {
    DATABASE_URL: opts.databaseUrl,
    NATS_URL: opts.natsUrl,
    ARGUS_PRINCIPAL_SECRET: secret(),
    ARGUS_API_KEY_PEPPER: secret(),
    ARGUS_CURSOR_SECRET: secret(),
    ARGUS_INIT_API_KEY: apiKey,
    ARGUS_HTTP_PORT: String(httpPort),
    // Each stack its own stream and subjects, so stacks sharing one NATS never see each other.
    ARGUS_EVENTS_STREAM: uniqueName("EVENTS"),
    ARGUS_SUBJECT_ROOT: uniqueName("t"),
  };
  const specs: Record<string, { entry: string; ready: string }> = {};
  for (const d of SERVICE_REGISTRY) {
    const [grpcPort, probePort] = [await freePort(), await freePort()];
    const names = serviceEnv(d.name);
    env[names.grpcPort] = String(grpcPort);
    env[names.probePort] = String(probePort);
    env[names.grpcUrl] = `127.0.0.1:${grpcPort}`;
    specs[d.name] = { entry: entryOf(d.name), ready: `http://127.0.0.1:${probePort}/readyz` };
  }
  specs[GATEWAY.name] = {
    entry: entryOf(GATEWAY.name),
    ready: `http://127.0.0.1:${httpPort}/readyz`,
  };
  Object.assign(env, opts.env);
  const start = (name: string, extra: Record<string, string> = {}) => {
    const spec = specs[name]!;
    return spawnProcess({
      name,
      command: process.execPath,
      args: [spec.entry],
      cwd: root,
      env: { ...env, ...extra },
      readyWhen: () => httpOk(spec.ready),
      timeoutMs: 60_000,
      ...(opts.onLine ? { onLine: opts.onLine } : {}),
    });
  };
  const processes: Record<string, SpawnedProcess> = {};
  try {
    for (const name of Object.keys(specs)) processes[name] = await start(name);
  } catch (err) {
    await Promise.allSettled(Object.values(processes).map((p) => p.stop()));
    throw err;
  }
  return {
    baseUrl: `http://127.0.0.1:${httpPort}`,
    apiKey,
    env,
    processes,
    async restart(name, extra) {
      await processes[name]?.stop();
      processes[name] = await start(name, extra);
      // The gateway is ready again only once its channel to the restarted service is.
      const gateway = specs.gateway!.ready;
      for (let i = 0; i < 100 && !(await httpOk(gateway).catch(() => false)); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      for (const name of Object.keys(specs).reverse()) await processes[name]?.stop();
    },
  };
}
