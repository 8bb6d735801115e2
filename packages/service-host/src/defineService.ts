import type { KeyObject } from "node:crypto";
import type { Client } from "@grpc/grpc-js";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Pool } from "pg";
import {
  type CallCredential,
  type Clock,
  type ConfigOf,
  type EnvVar,
  type Level,
  type Logger,
  type ServiceBinding,
  type ServiceDescription,
  createChannel,
  createLogger,
  grpcTarget,
  int,
  loadConfig,
  natsServers,
  oneOf,
  optionalStr,
  callKeysOf,
  callersOf,
  countBuffersInHeapLimit,
  keyEnv,
  noCredential,
  privateKeyVar,
  publicKeyVar,
  serviceCredential,
  serviceEnv,
  serviceNamed,
  shutdownTelemetry,
  startGrpcServer,
  str,
  systemClock,
  url,
} from "@argus/platform";
import {
  createCommandHandler,
  type CommandHandler,
  type EventStore,
  type Migration,
  type Project,
} from "@argus/eventstore";
import { provisionMessaging } from "./provisioning/provisionMessaging.ts";
import { requestReplies } from "./requestReplies.ts";
import { startServiceRuntime, type DurableConsumerOptions } from "./serviceRuntime.ts";

type Spec = Record<string, EnvVar<unknown>>;

/** What every service reads from its environment; names come from the registry. */
export interface CommonConfig {
  databaseUrl: string;
  /** Every NATS server's URL (NATS_URL, comma-separated). */
  natsServers: string[];
  natsUser: { user: string; pass: string } | undefined;
  bindHost: string;
  grpcPort: number;
  probePort: number;
  /** Its own Ed25519 private key; only a service that calls another holds one. */
  privateKey: KeyObject | undefined;
  /** The public keys it verifies calls with: the gateway's and its registry callers'. */
  trustedKeys: Readonly<Record<string, KeyObject>>;
  stream: string;
  subjectRoot: string;
  logLevel: Level;
}

/** What a service's handlers, consumers and start-up work are built from. */
export interface ServiceDeps<S extends Spec> {
  config: CommonConfig & ConfigOf<S>;
  /** The Postgres schema the service owns. */
  schema: string;
  pool: Pool;
  store: EventStore;
  commands: CommandHandler;
  /** Its NATS connection, as its own identity: for core request/reply beside the relay. */
  nc: NatsConnection;
  logger: Logger;
  /** The one source of "now" for handlers and loops; tests pin it (StartOptions.clock). */
  clock: Clock;
  /** One channel per service it calls (registry `calls`, and `optionalCalls` that are set). */
  channels: Readonly<Record<string, Client | undefined>>;
  /**
   * The service itself, for calls on its own behalf (`ownCall`): served only by RPCs that name
   * it. Calls for a caller forward the caller's principal instead (`onwardCall`).
   */
  self: CallCredential;
}

/** One service: its registry entry plus the parts only it has. */
export interface ServiceDefinition<S extends Spec> {
  description: ServiceDescription;
  /** Its own environment variables, beyond the common ones. */
  config: S;
  migrations: readonly Migration[];
  /** Inline projections of its events, run in each command's transaction. */
  project: Project;
  consumers?: (deps: ServiceDeps<S>) => readonly DurableConsumerOptions[];
  /**
   * Work before serving, after migrations (e.g. headless initialization, or a background loop:
   * the stop it returns runs first when the service stops, while the pool is still open).
   */
  init?: (deps: ServiceDeps<S>) => Promise<void | (() => Promise<void>)>;
  grpc: (deps: ServiceDeps<S>) => readonly ServiceBinding[];
}

export function defineService<S extends Spec>(
  name: string,
  parts: Omit<ServiceDefinition<S>, "description">,
): ServiceDefinition<S> {
  return { description: serviceNamed(name), ...parts };
}

/** The environment variables of a service: the common ones, then its own. */
function serviceConfigSpec(d: ServiceDescription): Spec {
  const env = serviceEnv(d.name);
  const spec: Spec = {
    DATABASE_URL: url("Postgres connection URL", ["postgres:", "postgresql:"]),
    NATS_URL: natsServers(
      "NATS server URL, or each server's separated by commas",
      "nats://127.0.0.1:4222",
    ),
    NATS_USER: optionalStr("the service's NATS user (its own identity; see natsIdentities)"),
    NATS_PASSWORD: optionalStr("password of NATS_USER"),
    ARGUS_BIND_HOST: str(
      "address the gRPC and probe ports listen on (0.0.0.0 in a pod; loopback locally)",
      "127.0.0.1",
    ),
    [env.grpcPort]: int("gRPC port", d.grpcPort, 0, 65535),
    [env.probePort]: int("HTTP port for /healthz and /readyz", d.probePort, 0, 65535),
    ARGUS_EVENTS_STREAM: str(
      "JetStream stream that carries every service's events",
      "ARGUS_EVENTS",
    ),
    ARGUS_SUBJECT_ROOT: str(
      "first token of event subjects (<root>.<service>.<aggregate>.<EventType>)",
      "argus",
    ),
    LOG_LEVEL: oneOf("log level", ["debug", "info", "warn", "error"], "info"),
  };
  const keys = callKeysOf(d.name);
  if (keys.signs)
    spec[keyEnv(d.name).privateKey] = privateKeyVar(
      `Ed25519 private key (PEM or base64 PKCS#8) signing ${d.name}'s calls on its own behalf`,
    );
  for (const signer of keys.trusts)
    spec[keyEnv(signer).publicKey] = publicKeyVar(
      `Ed25519 public key (PEM or base64 SPKI) of ${signer}, whose signed calls ${d.name} serves`,
    );
  for (const target of d.calls) {
    const port = serviceNamed(target).grpcPort;
    spec[serviceEnv(target).grpcUrl] = grpcTarget(`gRPC target of ${target}`, `127.0.0.1:${port}`);
  }
  for (const target of d.optionalCalls ?? []) {
    const t = grpcTarget(`gRPC target of ${target}; unset: it holds nothing`);
    spec[serviceEnv(target).grpcUrl] = { describe: t.describe, parse: t.parse, default: undefined };
  }
  return spec;
}

export function loadServiceConfig<S extends Spec>(
  def: ServiceDefinition<S>,
  env: NodeJS.ProcessEnv,
): { config: CommonConfig & ConfigOf<S>; grpcUrls: Record<string, string | undefined> } {
  const d = def.description;
  const names = serviceEnv(d.name);
  const all = loadConfig({ ...serviceConfigSpec(d), ...def.config }, env) as Record<
    string,
    unknown
  >;
  const common: CommonConfig = {
    databaseUrl: all.DATABASE_URL as string,
    natsServers: all.NATS_URL as string[],
    natsUser: all.NATS_USER
      ? { user: all.NATS_USER as string, pass: (all.NATS_PASSWORD as string | undefined) ?? "" }
      : undefined,
    bindHost: all.ARGUS_BIND_HOST as string,
    grpcPort: all[names.grpcPort] as number,
    probePort: all[names.probePort] as number,
    privateKey: all[keyEnv(d.name).privateKey] as KeyObject | undefined,
    trustedKeys: Object.fromEntries(
      callKeysOf(d.name).trusts.map((n) => [n, all[keyEnv(n).publicKey] as KeyObject]),
    ),
    stream: all.ARGUS_EVENTS_STREAM as string,
    subjectRoot: all.ARGUS_SUBJECT_ROOT as string,
    logLevel: all.LOG_LEVEL as Level,
  };
  const grpcUrls = Object.fromEntries(
    [...d.calls, ...(d.optionalCalls ?? [])].map((t) => [
      t,
      all[serviceEnv(t).grpcUrl] as string | undefined,
    ]),
  );
  return { config: { ...(all as ConfigOf<S>), ...common }, grpcUrls };
}

export interface RunningService {
  grpcPort: number;
  probePort: number | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * Also run the messaging management step (stream and this service's consumers) first.
   * Default: only when the service has no NATS identity, i.e. the server has no
   * authorization (tests); with one, the manager's step made them and the service may not.
   */
  provisionMessaging?: boolean;
  /** The service's clock (default: the system's); tests pass `fixedClock` to pin time. */
  clock?: Clock;
}

/** Migrate, run consumers and start-up work, then serve gRPC. Used by main and by tests. */
export async function startService<S extends Spec>(
  def: ServiceDefinition<S>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningService> {
  const { config, grpcUrls } = loadServiceConfig(def, env);
  const runtime = await startServiceRuntime({
    natsUser: config.natsUser,
    service: def.description.name,
    schema: def.description.schema,
    migrations: def.migrations,
    databaseUrl: config.databaseUrl,
    natsUrl: config.natsServers,
    stream: config.stream,
    subjectRoot: config.subjectRoot,
    logger,
  });
  const channels = Object.fromEntries(
    Object.entries(grpcUrls).map(([name, target]) => [
      name,
      target ? createChannel(target) : undefined,
    ]),
  );
  const closeChannels = () => Object.values(channels).forEach((c) => c?.close());
  let stopInit: (() => Promise<void>) | undefined;
  const clock = options.clock ?? systemClock;
  try {
    const deps: ServiceDeps<S> = {
      config,
      schema: def.description.schema,
      pool: runtime.pool,
      store: runtime.store,
      commands: createCommandHandler(runtime.store, def.project, clock),
      nc: runtime.nc,
      logger,
      clock,
      channels,
      self: config.privateKey
        ? serviceCredential(def.description.name, config.privateKey)
        : noCredential(def.description.name),
    };
    // A server without authorization (tests, a bare dev NATS) has no manager to do it.
    if (options.provisionMessaging ?? config.natsUser === undefined)
      await provisionMessaging(runtime.nc, {
        stream: config.stream,
        subjectRoot: config.subjectRoot,
        services: [def.description.name],
      });
    stopInit = (await def.init?.(deps)) ?? undefined;
    for (const consumer of def.consumers?.(deps) ?? []) {
      assertDeclared(def.description, consumer, config.subjectRoot);
      await runtime.consume(consumer);
    }
    const services = [...def.grpc(deps)];
    assertServiceCallers(def.description, services);
    const server = await startGrpcServer({
      host: config.bindHost,
      port: config.grpcPort,
      probePort: config.probePort,
      services,
      trust: { keys: config.trustedKeys },
      logger,
      ready: runtime.ready,
      replies: requestReplies({ pool: runtime.pool, schema: deps.schema, clock, logger }),
    });
    return {
      grpcPort: server.port,
      probePort: server.probePort,
      async stop() {
        await server.shutdown();
        await stopInit?.();
        closeChannels();
        await runtime.stop();
      },
    };
  } catch (err) {
    await stopInit?.();
    closeChannels();
    await runtime.stop();
    throw err;
  }
}

/**
 * A service process: JSON logs, start, and a clean stop on SIGINT/SIGTERM that flushes the
 * last spans. Its OpenTelemetry SDK (if any) was started before, by the `--import` of
 * `@argus/platform`'s `telemetryRegister.ts` in its start command.
 */
export async function serviceMain<S extends Spec>(def: ServiceDefinition<S>): Promise<void> {
  countBuffersInHeapLimit();
  const name = def.description.name;
  const { config } = loadServiceConfig(def, process.env);
  const logger = createLogger({ service: name, level: config.logLevel });
  const running = await startService(def, process.env, logger);
  logger.info(`${name} listening`, { grpc_port: running.grpcPort, probe_port: running.probePort });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      logger.info("shutting down", { signal });
      void running.stop().finally(() => shutdownTelemetry().finally(() => process.exit(0)));
    });
  }
}

/**
 * An RPC may serve only services the registry lets call this one: their public keys are the
 * only ones it holds, and the network admits no one else.
 */
function assertServiceCallers(d: ServiceDescription, services: readonly ServiceBinding[]): void {
  const callers = callersOf(d.name);
  for (const s of services)
    for (const [method, names] of Object.entries(s.serviceCalls))
      for (const n of names)
        if (!callers.includes(n))
          throw new Error(
            `${d.name}: ${method} serves ${n}, which is not among its registry callers ${callers.join(", ")}`,
          );
}

/** A consumer must be the one the registry declares: its NATS rights are derived from that. */
function assertDeclared(d: ServiceDescription, c: DurableConsumerOptions, root: string): void {
  const declared = (d.consumes ?? []).find((x) => x.durable === c.durable);
  if (!declared || `${root}.${declared.subjects}` !== c.filterSubject)
    throw new Error(
      `${d.name}: consumer ${c.durable} on ${c.filterSubject} is not the one the service registry declares`,
    );
}
