import { execFile } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  GATEWAY,
  NATS_MANAGER,
  SERVICE_REGISTRY,
  entryOf,
  TELEMETRY_REGISTER,
  generateCallKeys,
  serviceEnv,
  type CallKeyPair,
} from "@argus/platform";
import { freePort } from "./freePort.ts";
import { startLocalNats } from "./localNats.ts";
import type { LocalServer } from "./runningServer.ts";
import { lostPortRace } from "./startOnFreePort.ts";
import {
  StartAbandoned,
  spawnProcess,
  type ProcessExit,
  type SpawnedProcess,
} from "./spawnProcess.ts";
import {
  freshDatabaseRoles,
  migrateEnv,
  natsAuthorization,
  processCredentials,
  provisionEnv,
  secret,
  stackSecrets,
  type Credentials,
  type DatabaseRoles,
} from "./stackCredentials.ts";
import { uniqueName } from "./uniqueName.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const run = promisify(execFile);

export type { Credentials } from "./stackCredentials.ts";

/** A NATS server and the identity of each of its users (registry services and the manager). */
export interface NatsAccess {
  url: string;
  /** Absent: a server without authorization, where every process connects anonymously. */
  users?: Readonly<Record<string, Credentials>>;
}

export interface StackOptions {
  /** Superuser URL of the stack's database: the management step provisions roles on it. */
  databaseUrl: string;
  /** Absent: the stack starts its own nats-server, with one identity per service. */
  nats?: NatsAccess;
  /** Role names and passwords of the database (default: fresh ones for this stack). */
  database?: DatabaseRoles;
  /** Ed25519 call key pairs by process (registry `callSigners`); fresh ones when omitted. */
  callKeys?: Readonly<Record<string, CallKeyPair>>;
  /** Raw initial admin key; random when omitted. */
  apiKey?: string;
  /** Fixed gateway port; a free one when omitted. */
  httpPort?: number;
  /** Extra environment for every process (e.g. low rate limits, fixed secrets). */
  env?: Record<string, string>;
  /** Show each process's output live, one prefixed line at a time. */
  onLine?: (line: string) => void;
  /**
   * Restart a process that exits unasked (a crash, kill -9, an OOM kill), after a delay from
   * 0.5 s doubling to `maxRestartDelayMs`, logging each exit as `[supervisor] …` lines through
   * `onLine`: what `./argus up` does. Off by default: most tests want a death to be seen.
   */
  supervise?: boolean;
  /** Longest delay before a supervised restart; default 10 s. */
  maxRestartDelayMs?: number;
  /**
   * Called before each start of all the processes with the ports each will bind (the gateway's
   * HTTP, OTLP and Flight; a service's gRPC and probe): a test can take some of them first.
   */
  beforeStart?: (ports: Readonly<Record<string, readonly number[]>>) => Promise<void>;
}

export interface Stack {
  baseUrl: string;
  /** The gateway's OTLP/gRPC address (`127.0.0.1:<port>`), for `TraceService/Export`. */
  otlpGrpcAddress: string;
  /** The gateway's Arrow Flight address (`127.0.0.1:<port>`); the REST port serves Flight too. */
  flightAddress: string;
  apiKey: string;
  /**
   * The environment shared by every process, secrets included (tests need them), with the
   * superuser's DATABASE_URL and the NATS URL for test assertions; each process gets its own
   * credentials on top (`processEnv`): a service its database role, NATS identity and call keys,
   * the gateway its call key (the private key that signs callers' principals) and its NATS
   * identity (which only receives principal-cache invalidations).
   */
  env: Record<string, string>;
  processEnv: Record<string, Record<string, string>>;
  nats: NatsAccess;
  /** The stack's own nats-server, when it started one (fault tests crash and restart it). */
  natsServer?: LocalServer;
  /** The live process of each name: a supervised restart replaces the entry. */
  processes: Record<string, SpawnedProcess>;
  /** Supervised restarts so far, by process name. */
  restarts: Record<string, number>;
  /** Stops a process and starts it again, with the same environment plus `env`. */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  /**
   * Each process, alive or not, and what it said that explains a failure: its last warnings and
   * errors, or all its last lines if it died. For a test's error message, when an answer was a
   * 5xx: the stack's output is not shown otherwise.
   */
  report(): string;
  stop(): Promise<void>;
}

/**
 * Environment that lifts the gateway's rate limits, for a stack whose subject is not them
 * (suites, benchmarks, the fuzzer hammer a few keys from one address).
 */
export const NO_RATE_LIMITS: Readonly<Record<string, string>> = {
  ARGUS_RATE_LIMIT_PER_SECOND: "1000000",
  ARGUS_RATE_LIMIT_BURST: "1000000",
  ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND: "1000000",
  ARGUS_UNAUTH_RATE_LIMIT_BURST: "1000000",
};

/**
 * Whether a child started with `env` on top of `inherited` writes info lines: the level it runs
 * at is the stack's, else the one it inherits (`LOG_LEVEL=warn ./argus up`), else info.
 */
export function logsInfo(
  env: Readonly<Record<string, string | undefined>>,
  inherited: Readonly<Record<string, string | undefined>>,
): boolean {
  const level = env.LOG_LEVEL ?? inherited.LOG_LEVEL ?? "info";
  return !["warn", "error"].includes(level);
}

// Longer than the gateway's own readiness check (each backend channel gets up to 1 s): a
// probe that gave up at the same second aborted answers that were on their way (a loaded CI).
async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
  return res.ok;
}

/** A nats-server of the stack's own whose users are the registry's identities. */
async function securedNats(o: { root: string; stream: string }): Promise<{
  server: LocalServer;
  access: NatsAccess;
}> {
  const { users, config } = natsAuthorization(o);
  const server = await startLocalNats({
    authorization: { config, probe: users[NATS_MANAGER]! },
  });
  return { server, access: { url: server.url, users } };
}

/**
 * The whole stack as separate processes: the management step (database roles, migrations,
 * stream and consumers), every service of the registry (in its order, which puts a service
 * after those it calls) with its own database role and NATS identity, then the gateway.
 */
export async function startStack(opts: StackOptions): Promise<Stack> {
  let httpPort = opts.httpPort ?? (await freePort());
  const apiKey = opts.apiKey ?? `ak-test-${secret()}`;
  const subjectRoot = opts.env?.ARGUS_SUBJECT_ROOT ?? uniqueName("t");
  const stream = opts.env?.ARGUS_EVENTS_STREAM ?? uniqueName("EVENTS");
  const ownNats = opts.nats ? undefined : await securedNats({ root: subjectRoot, stream });
  const nats = opts.nats ?? ownNats!.access;
  const database = opts.database ?? freshDatabaseRoles();
  const env: Record<string, string> = {
    DATABASE_URL: opts.databaseUrl,
    NATS_URL: nats.url,
    ...stackSecrets(apiKey),
    ARGUS_HTTP_PORT: String(httpPort),
    // No Service routes a client elsewhere while a test's gateway stops, so its drain stays short.
    ARGUS_HTTP_DRAIN_MS: "250",
    // OTLP/gRPC: a free port of its own, never the documented 4317 parallel stacks share.
    ARGUS_OTLP_GRPC_PORT: String(await freePort()),
    // Arrow Flight likewise, never the documented 8815.
    ARGUS_FLIGHT_PORT: String(await freePort()),
    // Each stack its own stream and subjects, so stacks sharing one NATS never see each other.
    ARGUS_EVENTS_STREAM: stream,
    ARGUS_SUBJECT_ROOT: subjectRoot,
  };
  // Each private key only in its owner's environment; public keys only where they are checked.
  const callKeys = opts.callKeys ?? generateCallKeys();
  const specs: Record<string, { entry: string; ready: string }> = {};
  const processEnv: Record<string, Record<string, string>> = {};
  const credentials = { superuserUrl: opts.databaseUrl, database, natsUsers: nats.users, callKeys };
  // The environment names of the ports each process binds: one list for assigning them and
  // for telling `beforeStart` which they are.
  const portKeys = (name: string): string[] =>
    name === GATEWAY.name
      ? ["ARGUS_HTTP_PORT", "ARGUS_OTLP_GRPC_PORT", "ARGUS_FLIGHT_PORT"]
      : [serviceEnv(name).grpcPort, serviceEnv(name).probePort];
  const assignPorts = async (name: string) => {
    for (const key of portKeys(name)) env[key] = String(await freePort());
    if (name === GATEWAY.name) {
      httpPort = Number(env.ARGUS_HTTP_PORT);
      specs[name] = { entry: entryOf(name), ready: `http://127.0.0.1:${httpPort}/readyz` };
      return;
    }
    const names = serviceEnv(name);
    env[names.grpcUrl] = `127.0.0.1:${env[names.grpcPort]}`;
    specs[name] = {
      entry: entryOf(name),
      ready: `http://127.0.0.1:${env[names.probePort]}/readyz`,
    };
  };
  for (const d of SERVICE_REGISTRY) {
    await assignPorts(d.name);
    processEnv[d.name] = processCredentials(d.name, credentials);
  }
  specs[GATEWAY.name] = {
    entry: entryOf(GATEWAY.name),
    ready: `http://127.0.0.1:${httpPort}/readyz`,
  };
  processEnv[GATEWAY.name] = processCredentials(GATEWAY.name, credentials);
  Object.assign(env, opts.env);

  const step = async (script: string, extra: Record<string, string>) => {
    const { stdout, stderr } = await run(process.execPath, [`scripts/${script}`], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...extra },
    }).catch((err: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`${script} failed: ${err.stderr ?? err.message}`, { cause: err });
    });
    for (const line of `${stdout}${stderr}`.split("\n").filter(Boolean))
      opts.onLine?.(`[migrate] ${line}`);
  };
  try {
    await step("provision.ts", provisionEnv(opts.databaseUrl, database));
    await step("migrate.ts", {
      ...migrateEnv(opts.databaseUrl, database, nats.users),
      NATS_URL: nats.url,
      ARGUS_EVENTS_STREAM: stream,
      ARGUS_SUBJECT_ROOT: subjectRoot,
    });
  } catch (err) {
    await ownNats?.server.stop();
    throw err;
  }
  const start = (
    name: string,
    extra: Record<string, string> = {},
    awaitReady = true,
    abandon?: AbortSignal,
  ) => {
    const spec = specs[name]!;
    const childEnv = { ...env, ...processEnv[name], ...extra };
    return spawnProcess({
      name,
      command: process.execPath,
      // The OpenTelemetry SDK starts before the entry point (it does nothing unless OTEL_*
      // variables give it an exporter), as in the image.
      args: ["--import", `${root}${TELEMETRY_REGISTER}`, spec.entry],
      cwd: root,
      env: childEnv,
      readyWhen: awaitReady ? () => httpOk(spec.ready) : async () => true,
      // Its own "listening" line tells it from a process that took its port; a process logging
      // warnings only has no such line and is ready on its probe alone.
      ...(logsInfo(childEnv, process.env) && awaitReady
        ? { readyLine: new RegExp(`"msg":"${name} listening"`) }
        : {}),
      timeoutMs: 60_000,
      ...(abandon ? { abandon } : {}),
      ...(opts.onLine ? { onLine: opts.onLine } : {}),
    });
  };
  // Every process at once: each waits for what it calls on its own (the gateway is ready once
  // every backend's channel is), and starting them one by one cost ~1 s of a mostly idle
  // machine per process. A port that was free when chosen may be taken before the process
  // binds it (by a process another test started at the same moment): then all start again on
  // new ports. The others' waits are given up at the first loss (the gateway would otherwise
  // wait its whole minute for a backend that is not there).
  const portsOf = (name: string): number[] => portKeys(name).map((k) => Number(env[k]));
  const startAll = async (into: Record<string, SpawnedProcess>) => {
    for (let attempt = 1; ; attempt++) {
      const names = Object.keys(specs);
      await opts.beforeStart?.(Object.fromEntries(names.map((n) => [n, portsOf(n)])));
      const lostPort = new AbortController();
      const tries = await Promise.allSettled(
        names.map((name) =>
          start(name, {}, true, lostPort.signal).catch((err: unknown) => {
            if (lostPortRace(err)) lostPort.abort("a port was lost");
            throw err;
          }),
        ),
      );
      const lost: string[] = [];
      let failure: unknown;
      let firstLoss: unknown;
      for (const [i, t] of tries.entries()) {
        if (t.status === "fulfilled") into[names[i]!] = t.value;
        else if (lostPortRace(t.reason)) {
          lost.push(names[i]!);
          firstLoss ??= t.reason;
        } else if (!(t.reason instanceof StartAbandoned)) failure ??= t.reason;
      }
      if (lost.length === 0 && failure === undefined) return;
      const fixed = opts.httpPort !== undefined && lost.includes(GATEWAY.name);
      if (lost.length === 0 || fixed || attempt === 3) throw failure ?? firstLoss;
      opts.onLine?.(`[testkit] ${lost.join(", ")} lost ports to another process; new ports`);
      await Promise.allSettled(Object.values(into).map((p) => p.stop()));
      for (const name of Object.keys(into)) delete into[name];
      // Every process new ports (a fixed gateway port excepted): those given up at the first
      // loss may have lost theirs too, unseen.
      for (const name of names)
        if (!(name === GATEWAY.name && opts.httpPort !== undefined)) await assignPorts(name);
    }
  };
  const processes: Record<string, SpawnedProcess> = {};
  const restarts: Record<string, number> = {};
  // Processes stopped on purpose (stop(), restart()): their exit is not a crash.
  const stoppedOnPurpose = new WeakSet<SpawnedProcess>();
  const closing = new AbortController();
  const log = (text: string) => opts.onLine?.(`[supervisor] ${text}`);
  const describeExit = (e: ProcessExit) =>
    e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
  /**
   * Watches one name for as long as the stack runs: when its process exits unasked, starts a
   * new one after a capped, doubling delay (reset once a process stayed up for a minute). A
   * restarted process is not waited on to be ready (it may be waiting for Postgres or NATS
   * itself): only its exit is watched; its readiness is logged when it comes.
   */
  const supervise = async (name: string) => {
    const maxDelay = opts.maxRestartDelayMs ?? 10_000;
    let failures = 0;
    let upSince = Date.now();
    for (;;) {
      const p = processes[name]!;
      const exit = await p.exited();
      if (closing.signal.aborted) return;
      if (stoppedOnPurpose.has(p)) {
        // restart() replaced it; watch the new one once it is there.
        while (processes[name] === p && !closing.signal.aborted) await sleep(50);
        upSince = Date.now();
        continue;
      }
      if (Date.now() - upSince > 60_000) failures = 0;
      const delay = Math.min(maxDelay, 500 * 2 ** failures++);
      log(`${name} (pid ${p.pid}) ${describeExit(exit)}; restarting in ${delay} ms`);
      await sleep(delay, undefined, { signal: closing.signal }).catch(() => undefined);
      if (closing.signal.aborted) return;
      try {
        const next = await start(name, {}, false);
        processes[name] = next;
        restarts[name] = (restarts[name] ?? 0) + 1;
        upSince = Date.now();
        log(`${name} restarted (pid ${next.pid})`);
        void reportReady(name, next);
      } catch (err) {
        log(`${name} could not be started: ${(err as Error).message.split("\n")[0]}`);
        // Leave the failed one as the current entry: its exit (already past) loops round.
      }
    }
  };
  const reportReady = async (name: string, p: SpawnedProcess) => {
    const started = Date.now();
    while (!closing.signal.aborted && processes[name] === p) {
      if (await httpOk(specs[name]!.ready).catch(() => false)) {
        log(`${name} ready again after ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return;
      }
      await sleep(250);
    }
  };
  try {
    await startAll(processes);
  } catch (err) {
    // Which of those started before is still alive, and what it said last: a process that
    // died after it was ready is otherwise invisible behind the next one's timeout.
    if (err instanceof Error) err.message += `\n${processReport(processes)}`;
    await Promise.allSettled(Object.values(processes).map((p) => p.stop()));
    await ownNats?.server.stop();
    throw err;
  }
  const supervisors = opts.supervise ? Object.keys(specs).map((name) => supervise(name)) : [];
  return {
    baseUrl: `http://127.0.0.1:${httpPort}`,
    otlpGrpcAddress: `127.0.0.1:${env.ARGUS_OTLP_GRPC_PORT}`,
    flightAddress: `127.0.0.1:${env.ARGUS_FLIGHT_PORT}`,
    apiKey,
    env,
    processEnv,
    nats,
    ...(ownNats ? { natsServer: ownNats.server } : {}),
    processes,
    restarts,
    async restart(name, extra) {
      const old = processes[name];
      if (old) stoppedOnPurpose.add(old);
      await old?.stop();
      processes[name] = await start(name, extra);
      // The gateway is ready again only once its channel to the restarted service is.
      const gateway = specs.gateway!.ready;
      for (let i = 0; i < 100 && !(await httpOk(gateway).catch(() => false)); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    report: () => processReport(processes),
    async stop() {
      closing.abort();
      for (const name of Object.keys(specs).reverse()) {
        const p = processes[name];
        if (p) stoppedOnPurpose.add(p);
        await p?.stop();
      }
      await Promise.allSettled(supervisors);
      await ownNats?.server.stop();
    },
  };
}

/** A line a process logged at warn or above, or one that is not a log record (a crash's trace). */
const notable = (line: string) => !/"level":"(trace|debug|info)"/.test(line);

function processReport(processes: Record<string, SpawnedProcess>): string {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return "alive";
    } catch {
      return "EXITED";
    }
  };
  return Object.entries(processes)
    .map(([name, p]) => {
      const state = alive(p.pid);
      const lines = p.output().trimEnd().split("\n");
      // A process that died shows enough to read why (Node's report of an uncaught error); one
      // alive, its last warnings (a backend it waited for, a call that failed and where).
      const last = state === "EXITED" ? lines.slice(-40) : lines.filter(notable).slice(-8);
      return `  ${name} (pid ${p.pid}): ${state}\n    ${last.join("\n    ")}`;
    })
    .join("\n");
}
