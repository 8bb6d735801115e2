import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { loadTestcontainers } from "./containerRuntime.ts";
import { ownerLabels, removeOrphansOnce } from "./orphans.ts";
import { uniqueName } from "./uniqueName.ts";
import { jetStreamResponds, postgresAcceptsQueries, waitUntil } from "./readiness.ts";
import type { RunningServer } from "./runningServer.ts";

// Generous: a loaded machine (2 cores shared by many jobs) answers slowly, and a missing engine
// is told apart at once by mightHaveContainerRuntime.
const probeTimeoutMs = 30_000;

/**
 * The images the testkit runs, built from packages by deploy/images/build.sh (no registry has
 * them: Docker Hub is not reachable everywhere Argus is tested). ARGUS_IMAGE,
 * ARGUS_POSTGRES_IMAGE and ARGUS_NATS_IMAGE name others.
 */
export const IMAGES = {
  argus: process.env.ARGUS_IMAGE || "localhost/argus:dev",
  postgres: process.env.ARGUS_POSTGRES_IMAGE || "localhost/argus-postgres:15",
  nats: process.env.ARGUS_NATS_IMAGE || "localhost/argus-nats:dev",
} as const;

const BUILD_COMMAND = "deploy/images/build.sh";

/**
 * Whether testcontainers finds a working container runtime. Bounded, because a socket whose
 * daemon hangs must not stall the run, and skipped when none of the places testcontainers
 * looks exists, because importing it alone costs 0.5–1 s.
 */
export async function containerRuntimeAvailable(): Promise<boolean> {
  return (await containerRuntimeProblem()) === undefined;
}

/** Why no container runtime can be used, or undefined when one answers. */
export async function containerRuntimeProblem(): Promise<string | undefined> {
  if (!mightHaveContainerRuntime())
    return "no container engine (no DOCKER_HOST, no Docker socket; CI starts podman's)";
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(
      () => resolve(`the container engine did not answer within ${probeTimeoutMs} ms`),
      probeTimeoutMs,
    );
  });
  const probe = loadTestcontainers()
    .then(({ getContainerRuntimeClient }) => getContainerRuntimeClient())
    .then(
      () => undefined,
      (err: unknown) => `no container engine answers: ${(err as Error).message}`,
    );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why the testkit's images cannot be run, or undefined when the engine has them all. */
export async function missingImages(
  images: readonly string[] = Object.values(IMAGES),
): Promise<string | undefined> {
  const { getContainerRuntimeClient, ImageName } = await loadTestcontainers();
  const client = await getContainerRuntimeClient();
  const missing: string[] = [];
  for (const image of images)
    if (!(await client.image.exists(ImageName.fromString(image)))) missing.push(image);
  return missing.length === 0
    ? undefined
    : `not built: ${missing.join(", ")} (build them with ${BUILD_COMMAND})`;
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

/** Settings that trade durability for speed: the database is thrown away after the run. */
export const POSTGRES_TEST_SETTINGS = [
  "fsync=off",
  "synchronous_commit=off",
  "full_page_writes=off",
  "max_connections=300",
];

export async function startPostgresContainer(): Promise<RunningServer> {
  const { GenericContainer, Wait } = await loadTestcontainers();
  await removeOrphansOnce();
  const container = await new GenericContainer(IMAGES.postgres)
    .withLabels(ownerLabels(uniqueName("postgres")))
    .withCommand(POSTGRES_TEST_SETTINGS.flatMap((s) => ["-c", s]))
    .withTmpFs({ "/var/lib/postgresql/data": "rw" })
    .withSharedMemorySize(256 * 1024 * 1024)
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/))
    .start();
  const url = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  await waitUntil("postgres container", () => postgresAcceptsQueries(url));
  return {
    url,
    description: `${IMAGES.postgres} container`,
    stop: async () => void (await container.stop()),
  };
}

export async function startNatsContainer(): Promise<RunningServer> {
  const { GenericContainer, Wait } = await loadTestcontainers();
  await removeOrphansOnce();
  const container = await new GenericContainer(IMAGES.nats)
    .withLabels(ownerLabels(uniqueName("nats")))
    .withTmpFs({ "/data": "rw" })
    // The image exposes the cluster and monitoring ports too: each exposed port gets a binding.
    .withExposedPorts(4222, 6222, 8222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  const url = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
  await waitUntil("nats container", () => jetStreamResponds(url));
  return {
    url,
    description: `${IMAGES.nats} container`,
    stop: async () => void (await container.stop()),
  };
}

/** What a test checks of an image: its size (bytes, as the engine counts them) and config. */
export async function imageInfo(
  image: string,
): Promise<{ size: number; user: string; cmd: string[]; exposedPorts: string[] }> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  const client = await getContainerRuntimeClient();
  const info = await client.container.dockerode.getImage(image).inspect();
  return {
    size: info.Size,
    user: info.Config.User,
    cmd: info.Config.Cmd ?? [],
    exposedPorts: Object.keys(info.Config.ExposedPorts ?? {}),
  };
}

/**
 * Runs `cmd` once in a container of `image` with a read-only root and no capabilities, as a
 * deployment runs it; its exit code and output.
 */
export async function runOnce(
  image: string,
  cmd: string[],
): Promise<{ exitCode: number; output: string }> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  const docker = (await getContainerRuntimeClient()).container.dockerode;
  await removeOrphansOnce();
  const container = await docker.createContainer({
    Image: image,
    Cmd: cmd,
    Labels: ownerLabels(uniqueName("once")),
    HostConfig: { ReadonlyRootfs: true, CapDrop: ["ALL"], Tmpfs: { "/tmp": "rw" } },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = await container.logs({ stdout: true, stderr: true });
    // Docker's multiplexed log frames: an 8-byte header before each chunk.
    return { exitCode: StatusCode, output: demultiplexed(logs) };
  } finally {
    await container.remove({ force: true });
  }
}

function demultiplexed(raw: Buffer): string {
  let out = "";
  for (let at = 0; at + 8 <= raw.length;) {
    const size = raw.readUInt32BE(at + 4);
    out += raw.subarray(at + 8, at + 8 + size).toString();
    at += 8 + size;
  }
  return out || raw.toString();
}

/**
 * How a running container was started, and what its main process may do: what a test checks
 * of a deployment's settings. `capabilities` is the process's effective set (CapEff, hex).
 */
export async function containerInfo(id: string): Promise<{
  running: boolean;
  readOnlyRoot: boolean;
  user: string;
  image: string;
  capabilities: string;
  noNewPrivileges: boolean;
}> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(id);
  const info = await container.inspect();
  const status = (await client.container.exec(container, ["cat", "/proc/1/status"])).output;
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, "m").exec(status)?.[1] ?? "";
  return {
    running: info.State.Running,
    readOnlyRoot: info.HostConfig.ReadonlyRootfs ?? false,
    user: info.Config.User,
    image: info.Config.Image,
    capabilities: field("CapEff"),
    noNewPrivileges: field("NoNewPrivs") === "1",
  };
}
