import { loadTestcontainers } from "./containerRuntime.ts";
import { processAlive } from "./processAlive.ts";

/**
 * Whose a container or network is: every one the testkit makes carries the name of its stack or
 * server and the pid of the process that made it. A test run that is killed never stops what it
 * started, and testcontainers' own reaper (Ryuk) is an image from Docker Hub, which the testkit
 * does without; the next run removes what a dead process left (`removeOrphans`).
 */
export const OWNER_LABEL = "org.argus.testkit";
const OWNER_PID_LABEL = "org.argus.testkit.pid";

export const ownerLabels = (owner: string, pid: number = process.pid): Record<string, string> => ({
  [OWNER_LABEL]: owner,
  [OWNER_PID_LABEL]: String(pid),
});

const orphaned = (labels: Record<string, string> | undefined): boolean =>
  !processAlive(Number(labels?.[OWNER_PID_LABEL]));

/**
 * Removes the testkit's containers and networks whose maker is no longer running: the
 * containers first, since a network in use cannot go. Another live run's are left alone.
 * What cannot be removed (a race with another run doing the same) is left for the next.
 */
export async function removeOrphans(): Promise<{ containers: number; networks: number }> {
  const client = await (await loadTestcontainers()).getContainerRuntimeClient();
  const docker = client.container.dockerode;
  const filters = { label: [OWNER_LABEL] };
  const containers = (await docker.listContainers({ all: true, filters })).filter((c) =>
    orphaned(c.Labels),
  );
  await Promise.allSettled(
    containers.map((c) => docker.getContainer(c.Id).remove({ force: true, v: true })),
  );
  const networks = (await docker.listNetworks({ filters })).filter((n) => orphaned(n.Labels));
  await Promise.allSettled(networks.map((n) => docker.getNetwork(n.Id).remove()));
  return { containers: containers.length, networks: networks.length };
}

let once: Promise<unknown> | undefined;

/** `removeOrphans` at most once per process, before the first container it starts. */
export function removeOrphansOnce(): Promise<unknown> {
  once ??= removeOrphans().catch(() => undefined);
  return once;
}
