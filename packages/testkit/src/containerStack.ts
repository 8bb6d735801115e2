import {
  GATEWAY,
  NATS_MANAGER,
  SERVICE_REGISTRY,
  entryOf,
  generateCallKeys,
  serviceEnv,
} from "@argus/platform";
import type { GenericContainer, StartedTestContainer, WaitStrategy } from "testcontainers";
import { loadTestcontainers } from "./containerRuntime.ts";
import { IMAGES, POSTGRES_TEST_SETTINGS } from "./containers.ts";
import { ownerLabels, removeOrphansOnce } from "./orphans.ts";
import { jetStreamResponds, postgresAcceptsQueries, waitUntil } from "./readiness.ts";
import {
  freshDatabaseRoles,
  migrateEnv,
  natsAuthorization,
  processCredentials,
  provisionEnv,
  secret,
  stackSecrets,
  type Credentials,
} from "./stackCredentials.ts";
import { NO_RATE_LIMITS } from "./stack.ts";
import { uniqueName } from "./uniqueName.ts";

/**
 * The whole system as containers, as a cluster runs it: Postgres, a 3-node NATS JetStream
 * cluster, the management step (provision, migrate) as one-shot containers, then every service
 * of the registry and the gateway, each from the Argus image with its own entry point, read-only
 * root file system, no capabilities, non-root. Containers reach each other by name on a network
 * of their own (`postgres`, `nats-1`…, `identity`…, `gateway`); the test reaches them through
 * ports published on this machine. Everything is serialisable, so a vitest globalSetup can hand
 * it to test files (which act on containers by id: `natsNode`).
 */
export interface ContainerStack {
  /** The gateway's REST base URL, published on this machine. */
  baseUrl: string;
  /** The gateway's OTLP/gRPC address (`127.0.0.1:<port>`). */
  otlpGrpcAddress: string;
  apiKey: string;
  /** Superuser URL of the stack's database, published on this machine. */
  databaseUrl: string;
  stream: string;
  subjectRoot: string;
  /** Every process's NATS user; the manager may read the stream and consumers. */
  natsUsers: Readonly<Record<string, Credentials>>;
  /** The NATS_URL every process gets: each node by its name on the stack's network. */
  natsUrl: string;
  natsNodes: readonly NatsNode[];
  /** Container id by process name (registry services, "gateway", "postgres"). */
  containers: Readonly<Record<string, string>>;
}

export interface NatsNode {
  /** Its server_name and its name on the network. */
  name: string;
  containerId: string;
  /** Client URL published on this machine. */
  url: string;
}

export interface ContainerStackOptions {
  /** NATS nodes (default 3: JetStream's smallest cluster that survives losing one). */
  natsNodes?: number;
  /** Extra environment for every Argus process. */
  env?: Record<string, string>;
  /** Each container's output, one prefixed line at a time. */
  onLine?: (line: string) => void;
}

export interface RunningContainerStack {
  stack: ContainerStack;
  stop(): Promise<void>;
}

const GRPC_PORT = 50051;
const PROBE_PORT = 9090;
const HTTP_PORT = 8080;
const OTLP_GRPC_PORT = 4317;
const STARTUP_MS = 180_000;

export async function startContainerStack(
  opts: ContainerStackOptions = {},
): Promise<RunningContainerStack> {
  const tc = await loadTestcontainers();
  await removeOrphansOnce();
  const session = uniqueName("argus").toLowerCase().replace(/_/g, "-");
  // In start order, by layer: Postgres and NATS, the services, the gateway.
  const layers: StartedTestContainer[][] = [[], [], []];
  let layer = 0;
  let network: { remove(): Promise<unknown> } | undefined;
  // Last in, first out: the gateway, then the services, then what they use.
  const stop = async () => {
    for (const group of [...layers].reverse())
      await Promise.allSettled(group.map((c) => c.stop({ timeout: 5_000 })));
    await network?.remove().catch(() => undefined);
  };
  try {
    // Made here rather than by testcontainers' Network, so it carries the owner's labels too.
    const client = await tc.getContainerRuntimeClient();
    network = await client.network.create({
      Name: session,
      Driver: "bridge",
      Labels: ownerLabels(session),
    });
    const onLine = opts.onLine;
    const start = async (name: string, container: GenericContainer) => {
      const c = await container
        .withName(`${session}-${name}`)
        .withNetworkMode(session)
        .withNetworkAliases(name)
        .withLabels(ownerLabels(session))
        .withStartupTimeout(STARTUP_MS)
        .withLogConsumer((stream) => {
          if (!onLine) return;
          stream.on("data", (chunk: Buffer | string) => {
            for (const line of chunk.toString().split("\n").filter(Boolean))
              onLine(`[${name}] ${line}`);
          });
        })
        .start()
        .catch(async (err: unknown) => {
          throw new Error(`${name} container did not start: ${(err as Error).message}`, {
            cause: err,
          });
        });
      layers[layer]!.push(c);
      return c;
    };

    // ---- Postgres and the NATS cluster --------------------------------------------------
    const subjectRoot = "argus";
    const stream = "ARGUS_EVENTS";
    const superuserPassword = secret();
    const nodeCount = opts.natsNodes ?? 3;
    const nodeNames = Array.from({ length: nodeCount }, (_, i) => `nats-${i + 1}`);
    const natsUrl = nodeNames.map((n) => `nats://${n}:4222`).join(",");
    const authorization = natsAuthorization({ root: subjectRoot, stream });
    const [postgres, ...nodes] = await Promise.all([
      start(
        "postgres",
        new tc.GenericContainer(IMAGES.postgres)
          .withEnvironment({ POSTGRES_PASSWORD: superuserPassword })
          .withCommand(POSTGRES_TEST_SETTINGS.flatMap((s) => ["-c", s]))
          .withTmpFs({ "/var/lib/postgresql/data": "rw" })
          .withSharedMemorySize(256 * 1024 * 1024)
          .withExposedPorts(5432)
          .withWaitStrategy(
            tc.Wait.forLogMessage(/database system is ready to accept connections/),
          ),
      ),
      ...nodeNames.map((name) =>
        start(
          name,
          new tc.GenericContainer(IMAGES.nats)
            .withCopyContentToContainer([
              {
                content: natsNodeConfig(name, nodeNames, authorization.config),
                target: "/etc/argus-nats.conf",
                mode: 0o644,
              },
            ])
            .withCommand(["--config", "/etc/argus-nats.conf"])
            // JetStream's store on a tmpfs: a killed node comes back empty and catches up.
            .withTmpFs({ "/data": "rw" })
            .withExposedPorts(4222, 6222, 8222)
            .withWaitStrategy(tc.Wait.forLogMessage(/Server is ready/)),
        ),
      ),
    ]);
    const host = (c: StartedTestContainer, port: number) =>
      `${c.getHost()}:${c.getMappedPort(port)}`;
    const databaseUrl = `postgres://postgres:${superuserPassword}@${host(postgres, 5432)}/postgres`;
    const inside = `postgres://postgres:${superuserPassword}@postgres:5432/postgres`;
    const natsNodes = nodeNames.map((name, i) => ({
      name,
      containerId: nodes[i]!.getId(),
      url: `nats://${host(nodes[i]!, 4222)}`,
    }));
    await waitUntil("postgres container", () => postgresAcceptsQueries(databaseUrl), 60_000);
    // JetStream answers once the cluster has elected its meta leader.
    await waitUntil(
      "the NATS cluster's JetStream",
      () =>
        jetStreamResponds(natsNodes.map((n) => n.url).join(","), authorization.users[NATS_MANAGER]),
      60_000,
    );

    // ---- The management step, then the services and the gateway --------------------------
    const apiKey = `ak-test-${secret()}`;
    const database = freshDatabaseRoles();
    const callKeys = generateCallKeys();
    const credentials = {
      superuserUrl: inside,
      database,
      natsUsers: authorization.users,
      callKeys,
    };
    const common: Record<string, string> = {
      NATS_URL: natsUrl,
      ARGUS_EVENTS_STREAM: stream,
      ARGUS_SUBJECT_ROOT: subjectRoot,
      ARGUS_BIND_HOST: "0.0.0.0",
      ARGUS_HTTP_HOST: "0.0.0.0",
      ARGUS_HTTP_PORT: String(HTTP_PORT),
      ARGUS_OTLP_GRPC_PORT: String(OTLP_GRPC_PORT),
      ...stackSecrets(apiKey),
      ...NO_RATE_LIMITS,
      ...Object.fromEntries(
        SERVICE_REGISTRY.flatMap((d) => {
          const names = serviceEnv(d.name);
          return [
            [names.grpcPort, String(GRPC_PORT)],
            [names.probePort, String(PROBE_PORT)],
            [names.grpcUrl, `${d.name}:${GRPC_PORT}`],
          ];
        }),
      ),
      ...opts.env,
    };
    const argus = (command: string[], env: Record<string, string>) =>
      new tc.GenericContainer(IMAGES.argus)
        .withCommand(command)
        .withEnvironment(env)
        // As the chart runs it: read-only root with a writable /tmp, no capabilities.
        .withTmpFs({ "/tmp": "rw" })
        .withDroppedCapabilities("ALL")
        .withSecurityOpt("no-new-privileges");
    const oneShot = async (name: string, script: string, env: Record<string, string>) => {
      const c = await start(
        name,
        readOnly(argus(["node", `scripts/${script}`], env)).withWaitStrategy(
          tc.Wait.forOneShotStartup(),
        ),
      ).catch(async (err: unknown) => {
        const logs = await logsOf(`${session}-${name}`);
        throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
      });
      // It has exited: only its removal is left.
      layers[layer]!.splice(layers[layer]!.indexOf(c), 1);
      await c.stop({ timeout: 0 }).catch(() => undefined);
    };
    layer = 1;
    await oneShot("provision", "provision.ts", provisionEnv(inside, database));
    await oneShot("migrate", "migrate.ts", {
      ...migrateEnv(inside, database, authorization.users),
      NATS_URL: natsUrl,
      ARGUS_EVENTS_STREAM: stream,
      ARGUS_SUBJECT_ROOT: subjectRoot,
      ARGUS_STREAM_REPLICAS: String(Math.min(nodeCount, 3)),
    });

    const serve = (name: string, wait: WaitStrategy, ports: number[]) =>
      start(
        name,
        readOnly(
          argus(["node", entryOf(name)], { ...common, ...processCredentials(name, credentials) }),
        )
          .withExposedPorts(...ports)
          .withWaitStrategy(wait),
      ).catch(async (err: unknown) => {
        const logs = await logsOf(`${session}-${name}`);
        throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
      });
    // A service needs only Postgres and NATS to be ready (it calls others lazily): all at once.
    const services = await Promise.all(
      SERVICE_REGISTRY.map((d) =>
        serve(d.name, tc.Wait.forHttp("/readyz", PROBE_PORT).forStatusCode(200), [PROBE_PORT]),
      ),
    );
    layer = 2;
    const gateway = await serve(
      GATEWAY.name,
      tc.Wait.forHttp("/readyz", HTTP_PORT).forStatusCode(200),
      [HTTP_PORT, OTLP_GRPC_PORT],
    );

    const stack: ContainerStack = {
      baseUrl: `http://${host(gateway, HTTP_PORT)}`,
      otlpGrpcAddress: host(gateway, OTLP_GRPC_PORT),
      apiKey,
      databaseUrl,
      stream,
      subjectRoot,
      natsUsers: authorization.users,
      natsUrl,
      natsNodes,
      containers: {
        postgres: postgres.getId(),
        ...Object.fromEntries(SERVICE_REGISTRY.map((d, i) => [d.name, services[i]!.getId()])),
        [GATEWAY.name]: gateway.getId(),
      },
    };
    return { stack, stop };
  } catch (err) {
    await stop();
    throw err;
  }

  async function logsOf(name: string): Promise<string> {
    const client = await (await loadTestcontainers()).getContainerRuntimeClient();
    // Exited ones too: a one-shot step that failed.
    const all = await client.container.dockerode.listContainers({ all: true });
    const info = all.find((c) => c.Names.includes(`/${name}`) || c.Names.includes(name));
    if (!info) return "";
    const stream = await client.container.logs(client.container.getById(info.Id), {
      tail: 60,
    });
    let text = "";
    stream.on("data", (chunk: Buffer | string) => (text += chunk.toString()));
    await new Promise((resolve) => {
      stream.once("end", resolve);
      setTimeout(resolve, 2_000);
    });
    return text;
  }
}

/** testcontainers has no switch for it; the engine's API does (HostConfig.ReadonlyRootfs). */
function readOnly<T extends GenericContainer>(c: T): T {
  (c as unknown as { hostConfig: { ReadonlyRootfs?: boolean } }).hostConfig.ReadonlyRootfs = true;
  return c;
}

/** One node of the stack's JetStream cluster: every node routes to every other by name. */
function natsNodeConfig(name: string, nodes: readonly string[], authorization: string): string {
  return [
    `server_name: ${name}`,
    "listen: 0.0.0.0:4222",
    "http: 0.0.0.0:8222",
    'jetstream { store_dir: "/data" }',
    "cluster {",
    "  name: argus",
    "  listen: 0.0.0.0:6222",
    `  routes: [${nodes.map((n) => `"nats-route://${n}:6222"`).join(", ")}]`,
    "}",
    authorization,
    "",
  ].join("\n");
}

/** Kills one container of a stack (SIGKILL, no grace), by id. */
export async function killContainer(id: string): Promise<void> {
  const client = await (await loadTestcontainers()).getContainerRuntimeClient();
  await client.container.getById(id).kill({ signal: "SIGKILL" });
}

/** Starts a stopped container of a stack again, by id. */
export async function startContainer(id: string): Promise<void> {
  const client = await (await loadTestcontainers()).getContainerRuntimeClient();
  await client.container.start(client.container.getById(id));
}
