// Types only: loading testcontainers costs 0.5–1 s, paid only when a container is wanted.
import type * as Testcontainers from "testcontainers";

/**
 * testcontainers' defaults, set before it loads. Its reaper (Ryuk) is an image from Docker Hub:
 * the testkit removes what it started itself instead. A local engine's published ports are on
 * this machine: 127.0.0.1, not the bridge gateway testcontainers picks when it believes it runs
 * inside a container (a /.dockerenv left in a VM's root file system).
 */
function configureTestcontainers(): void {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
  const host = process.env.DOCKER_HOST;
  if (!host || host.startsWith("unix://")) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= "127.0.0.1";
}

export async function loadTestcontainers(): Promise<typeof Testcontainers> {
  configureTestcontainers();
  return import("testcontainers");
}
