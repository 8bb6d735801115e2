import { jetStreamResponds, postgresAcceptsQueries, waitUntil } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";

const probeTimeoutMs = 5_000;

/**
 * Whether testcontainers finds a working container runtime. Loaded lazily (the import alone
 * costs ~0.5 s) and bounded, because a socket whose daemon hangs must not stall the run.
 */
export async function containerRuntimeAvailable(): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), probeTimeoutMs);
  });
  const probe = import("testcontainers")
    .then(({ getContainerRuntimeClient }) => getContainerRuntimeClient())
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startPostgresContainer(): Promise<RunningServer> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("postgres:16-alpine")
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
    .withCommand([
      "postgres",
      ...[
        "fsync=off",
        "synchronous_commit=off",
        "full_page_writes=off",
        "max_connections=300",
      ].flatMap((s) => ["-c", s]),
    ])
    .withTmpFs({ "/var/lib/postgresql/data": "rw" })
    .withSharedMemorySize(256 * 1024 * 1024)
    .withExposedPorts(5432)
    // The image's entrypoint starts a temporary server for initdb first: wait for the second.
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const url = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  await waitUntil("postgres container", () => postgresAcceptsQueries(url));
  return {
    url,
    description: "postgres:16-alpine container",
    stop: async () => void (await container.stop()),
  };
}

export async function startNatsContainer(): Promise<RunningServer> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("nats:2.10")
    .withCommand(["-js", "-sd", "/data"])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  const url = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
  await waitUntil("nats container", () => jetStreamResponds(url));
  return {
    url,
    description: "nats:2.10 container",
    stop: async () => void (await container.stop()),
  };
}
