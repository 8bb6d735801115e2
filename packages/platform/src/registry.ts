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
  /** Secrets it reads besides DATABASE_URL and ARGUS_PRINCIPAL_SECRET. */
  readonly secrets?: readonly string[];
  /**
   * The durable consumers it reads, with their filter below the subject root (`>` is every
   * event, `identity.space.>` one aggregate's). Its NATS identity may pull from these and
   * publish only its own events (`<root>.<name>.>`); the management step creates them.
   */
  readonly consumes?: readonly ConsumerDescription[];
}

export interface ConsumerDescription {
  readonly durable: string;
  readonly subjects: string;
}

export function describeService(d: ServiceDescription): ServiceDescription {
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
  }),
  describeService({
    name: "catalog",
    schema: "catalog",
    grpcPort: 50052,
    probePort: 9092,
    calls: ["identity"],
    optionalCalls: ["dataset"],
    consumes: [{ durable: "catalog-space-cascade", subjects: "identity.space.>" }],
  }),
];

/** The edge process: not event-sourced, calls every service. */
export const GATEWAY = Object.freeze({ name: "gateway", httpPort: 8080 });

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

/** Entry point of a process, relative to the repository root. */
export const entryOf = (name: string): string => `services/${name}/src/main.ts`;
