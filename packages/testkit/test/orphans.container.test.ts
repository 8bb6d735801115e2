import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { loadTestcontainers } from "../src/containerRuntime.ts";
import { IMAGES } from "../src/containers.ts";
import { containerTier } from "../src/containerTier.ts";
import { OWNER_LABEL, ownerLabels, removeOrphans } from "../src/orphans.ts";
import { uniqueName } from "../src/uniqueName.ts";

// What a killed test run leaves behind (its containers and its stack's network) is removed by
// the next run; what a running process owns, and what is not the testkit's, is left alone.

const tier = containerTier();

/** A pid no process has any more: one that just ran and exited. */
function deadPid(): number {
  const done = spawnSync(process.execPath, ["-e", "0"]);
  if (done.pid === undefined) throw new Error("could not run a process");
  return done.pid;
}

describe.skipIf("skipped" in tier)("removeOrphans", () => {
  const made: { containers: string[]; networks: string[] } = { containers: [], networks: [] };
  const docker = async () =>
    (await (await loadTestcontainers()).getContainerRuntimeClient()).container.dockerode;

  async function make(labels: Record<string, string> | undefined) {
    const d = await docker();
    const name = uniqueName("orphan-test").toLowerCase().replace(/_/g, "-");
    const network = await d.createNetwork({ Name: name, ...(labels && { Labels: labels }) });
    const container = await d.createContainer({
      name,
      Image: IMAGES.nats,
      ...(labels && { Labels: labels }),
      HostConfig: { NetworkMode: name },
    });
    made.containers.push(container.id);
    made.networks.push(network.id);
    return { container: container.id, network: network.id };
  }

  async function exists(kind: "container" | "network", id: string): Promise<boolean> {
    const d = await docker();
    const found =
      kind === "container"
        ? await d.listContainers({ all: true, filters: { id: [id] } })
        : await d.listNetworks({ filters: { id: [id] } });
    return found.length > 0;
  }

  afterAll(async () => {
    const d = await docker();
    for (const id of made.containers)
      await d
        .getContainer(id)
        .remove({ force: true })
        .catch(() => undefined);
    for (const id of made.networks)
      await d
        .getNetwork(id)
        .remove()
        .catch(() => undefined);
  });

  it("removes a dead process's containers and networks, never a live one's or another's", async () => {
    const dead = await make(ownerLabels(uniqueName("dead"), deadPid()));
    const live = await make(ownerLabels(uniqueName("live")));
    const foreign = await make(undefined);
    // A label the testkit did not write a pid into counts as nobody's: it cannot be alive.
    const unowned = await make({ [OWNER_LABEL]: uniqueName("unowned") });

    const removed = await removeOrphans();

    expect(removed.containers).toBeGreaterThanOrEqual(2);
    expect(removed.networks).toBeGreaterThanOrEqual(2);
    for (const gone of [dead, unowned]) {
      expect(await exists("container", gone.container)).toBe(false);
      expect(await exists("network", gone.network)).toBe(false);
    }
    for (const kept of [live, foreign]) {
      expect(await exists("container", kept.container)).toBe(true);
      expect(await exists("network", kept.network)).toBe(true);
    }
  });
});
