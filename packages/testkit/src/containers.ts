import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { jetStreamResponds, postgresAcceptsQueries, waitUntil } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";

const probeTimeoutMs = 5_000;

/**
 * Whether testcontainers finds a working container runtime. Bounded, because a socket whose
 * daemon hangs must not stall the run, and skipped when none of the places testcontainers
 * looks exists, because importing it alone costs 0.5–1 s.
 */
export async function containerRuntimeAvailable(): Promise<boolean> {
  if (!mightHaveContainerRuntime()) return false;
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

/** Mirrors the strategies of testcontainers' getContainerRuntimeClient (v12). */
function mightHaveContainerRuntime(): boolean {
  if (process.platform === "win32" || process.env.DOCKER_HOST) return true;
  const home = homedir();
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  return [
    join(home, ".testcontainers.properties"),
    "/var/run/docker.sock",
    ...(runtimeDir ? [join(runtimeDir, "docker.sock")] : []),
    join(home, ".docker", "run", "docker.sock"),
    join(home, ".docker", "desktop", "docker.sock"),
    `/run/user/${process.getuid?.() ?? ""}/docker.sock`,
  ].some((path) => existsSync(path));
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
