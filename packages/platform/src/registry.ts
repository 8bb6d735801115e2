/**
 * The one list of Argus's processes. The gateway (its backends), the testkit stack,
 * `./argus up`, the migrations and the Helm chart (deploy/helm/argus/files/registry.json,
 * generated from this by `pnpm gen`) all read it: adding a service is one folder under
 * services/ plus one line here.
 */
export interface ServiceDescription {
  /** Process name, subject token (`argus.<name>.…`) and folder `services/<name>`. */
  readonly name: string;
  /** The Postgres schema it owns (one `events` table and its projections). */
  readonly schema: string;
  /** Default gRPC and HTTP probe ports of a local stack. */
  readonly grpcPort: number;
  readonly probePort: number;
  /** Other services it calls over gRPC (each must be in the registry, or be optional). */
  readonly calls: readonly string[];
  /** Services it may call when they are deployed; absent, the port answers "none". */
  readonly optionalCalls?: readonly string[];
  /** Secrets it reads besides DATABASE_URL, NATS_PASSWORD and its call keys (`callKeysOf`). */
  readonly secrets?: readonly string[];
  /**
   * The durable consumers it reads, with their filter below the subject root (`>` is every
   * event, `identity.space.>` one aggregate's). Its NATS identity may pull from these and
   * publish only its own events (`<root>.<name>.>`); the management step creates them.
   */
  readonly consumes?: readonly ConsumerDescription[];
  /**
   * Whether it tells the gateways to drop cached principals (core NATS request with many
   * replies on `principalInvalidationSubject`, acknowledgements on its own inbox): the service
   * that owns authorization. docs/architecture.md, "Principal cache and invalidation".
   */
  readonly invalidatesPrincipals?: boolean;
}

interface ConsumerDescription {
  readonly durable: string;
  readonly subjects: string;
}

function describeService(d: ServiceDescription): ServiceDescription {
  if (!/^[a-z][a-z0-9-]*$/.test(d.name)) throw new Error(`bad service name ${d.name}`);
  if (!/^[a-z][a-z0-9_]*$/.test(d.schema)) throw new Error(`bad schema name ${d.schema}`);
  return Object.freeze(d);
}

export const SERVICE_REGISTRY: readonly ServiceDescription[] = [
  describeService({
    name: "identity",
    schema: "identity",
    grpcPort: 50051,
    probePort: 9091,
    calls: [],
    secrets: ["ARGUS_API_KEY_PEPPER", "ARGUS_INIT_API_KEY"],
    consumes: [{ durable: "identity-audit-log", subjects: ">" }],
    invalidatesPrincipals: true,
  }),
  describeService({
    name: "catalog",
    schema: "catalog",
    grpcPort: 50052,
    probePort: 9092,
    calls: ["identity"],
    // The dataset service (a dataset's space before tagging it) and the tracing service (the
    // spans and traces that annotation-queue records name, a monitor's space before tagging it).
    optionalCalls: ["dataset", "tracing"],
    consumes: [
      { durable: "catalog-space-cascade", subjects: "identity.space.>" },
      { durable: "catalog-restrictions", subjects: "identity.restriction.>" },
      { durable: "catalog-dataset-deletions", subjects: "dataset.dataset.>" },
      // A deleted monitor's tag attachments.
      { durable: "catalog-monitor-deletions", subjects: "tracing.monitor.>" },
    ],
  }),
  describeService({
    name: "dataset",
    schema: "dataset",
    grpcPort: 50053,
    probePort: 9093,
    // The catalog: the annotation configs that annotations of examples and runs name.
    calls: ["identity", "catalog"],
    consumes: [{ durable: "dataset-space-cascade", subjects: "identity.space.>" }],
  }),
  describeService({
    name: "tracing",
    schema: "tracing",
    grpcPort: 50054,
    probePort: 9094,
    // Identity: space facts and restricted projects; the catalog: where projects live, and
    // the project OTLP ingestion names, created on first use.
    calls: ["identity", "catalog"],
    // The webhook dispatcher: the webhooks a monitor's channels name, asked as the caller.
    optionalCalls: ["webhook-dispatcher"],
    consumes: [
      // Its copy of the catalog's projects (a deleted project's spans and monitors go with it).
      { durable: "tracing-projects", subjects: "catalog.project.>" },
      // Space facts and restricted projects for monitor and dashboard lists; a deleted
      // space's dashboards and monitors.
      { durable: "tracing-space-cascade", subjects: "identity.space.>" },
      { durable: "tracing-restrictions", subjects: "identity.restriction.>" },
      // The endpoints monitor channels show; a deleted webhook leaves monitors' channels.
      { durable: "tracing-webhooks", subjects: "webhook-dispatcher.webhook.>" },
    ],
  }),
  describeService({
    name: "task-runner",
    schema: "tasks",
    grpcPort: 50056,
    probePort: 9096,
    // Identity: spaces; the catalog: projects, the evaluators tasks run and their AI
    // integrations; the dataset service: datasets, experiments and the runs dataset tasks
    // evaluate; the tracing service: the spans project tasks evaluate.
    calls: ["identity", "catalog", "dataset", "tracing"],
    consumes: [
      { durable: "tasks-space-cascade", subjects: "identity.space.>" },
      // Deleted evaluators and integrations: a run that uses one stops.
      { durable: "tasks-catalog-deletions", subjects: "catalog.>" },
    ],
  }),
  describeService({
    name: "webhook-dispatcher",
    schema: "webhooks",
    grpcPort: 50055,
    probePort: 9095,
    // Identity: organizations and space facts; the catalog and the task runner: the prompts,
    // evaluators and tasks that subscriptions name.
    calls: ["identity", "catalog", "task-runner"],
    consumes: [
      // The events subscriptions deliver, and the deletions that end subscriptions.
      { durable: "webhooks-catalog-events", subjects: "catalog.>" },
      { durable: "webhooks-task-events", subjects: "task-runner.>" },
      { durable: "webhooks-space-cascade", subjects: "identity.space.>" },
      // Monitors' changes of status, delivered to the webhooks their channels name.
      { durable: "webhooks-monitor-events", subjects: "tracing.monitor.>" },
    ],
  }),
];

/**
 * The edge process: not event-sourced, calls every service. It caches principals, so its NATS
 * identity may receive the invalidations and answer them, nothing else (natsIdentities).
 */
export const GATEWAY = Object.freeze({ name: "gateway", httpPort: 8080, cachesPrincipals: true });

export function serviceNamed(name: string): ServiceDescription {
  const found = SERVICE_REGISTRY.find((s) => s.name === name);
  if (!found) throw new Error(`no service ${name} in the registry`);
  return found;
}

/** `task-runner` → `TASK_RUNNER`: the prefix of a service's environment variables. */
export const envPrefix = (name: string): string => name.replace(/-/g, "_").toUpperCase();

/** The environment variable names a process uses for a service's ports and address. */
export function serviceEnv(name: string): { grpcPort: string; probePort: string; grpcUrl: string } {
  const p = envPrefix(name);
  return { grpcPort: `${p}_GRPC_PORT`, probePort: `${p}_PROBE_PORT`, grpcUrl: `${p}_GRPC_URL` };
}

/** Processes that call `name` over gRPC: the gateway always, plus the services that declare it. */
export function callersOf(name: string): string[] {
  return [
    GATEWAY.name,
    ...SERVICE_REGISTRY.filter(
      (s) => s.calls.includes(name) || (s.optionalCalls ?? []).includes(name),
    ).map((s) => s.name),
  ];
}

/** The environment variables of a process's Ed25519 call key pair (callCredentials.ts). */
export function keyEnv(name: string): { privateKey: string; publicKey: string } {
  const p = envPrefix(name);
  return { privateKey: `${p}_PRIVATE_KEY`, publicKey: `${p}_PUBLIC_KEY` };
}

/**
 * Whether a process signs calls, i.e. holds a private key: the gateway (every caller's
 * principal, and its own calls) and each service that calls another on its own behalf.
 */
function signsCalls(name: string): boolean {
  if (name === GATEWAY.name) return true;
  const d = serviceNamed(name);
  return d.calls.length > 0 || (d.optionalCalls ?? []).length > 0;
}

/**
 * The call keys a process holds: its own private key when it signs, and the public keys of
 * those whose signatures it checks (a service: the gateway's and its callers'; the gateway:
 * none). The one rule for the testkit, `./argus up` and the Helm chart.
 */
export function callKeysOf(name: string): { signs: boolean; trusts: string[] } {
  return {
    signs: signsCalls(name),
    trusts: name === GATEWAY.name ? [] : callersOf(name),
  };
}

/** Every process that holds a private key: the key pairs a deployment needs. */
export const callSigners = (): string[] =>
  [GATEWAY.name, ...SERVICE_REGISTRY.map((d) => d.name)].filter(signsCalls);

/** Entry point of a process, relative to the repository root. */
export const entryOf = (name: string): string => `services/${name}/src/main.ts`;

/**
 * What every process imports before its entry point (`node --import <it> <entry>`): the
 * OpenTelemetry SDK, whose module hooks must be in place before what it instruments is loaded.
 */
export const TELEMETRY_REGISTER = "packages/platform/src/telemetryRegister.ts";
