import { expect, it } from "vitest";
import { GATEWAY, SERVICE_REGISTRY } from "@argus/platform";
import { IMAGES, containerInfo, imageInfo, runOnce } from "@argus/testkit";
import { describeContainers } from "./container-support.ts";

// The Argus image (deploy/docker/Dockerfile, built by deploy/images/build.sh): at most 300 MB,
// non-root, nothing to install or compile with at run time, and every process of the stack runs
// from it with a read-only root file system (the stack's own start proves that each entry point
// and the migration scripts start that way and answer their probes).

const MAX_BYTES = 300 * 1000 * 1000;

describeContainers("the Argus image", (ref) => {
  it("is at most 300 MB, runs as 10001 and starts the gateway by default", async () => {
    const image = await imageInfo(IMAGES.argus);
    expect(image.size).toBeGreaterThan(100 * 1000 * 1000);
    expect(image.size).toBeLessThanOrEqual(MAX_BYTES);
    expect(image.user).toBe("10001:10001");
    expect(image.cmd).toEqual(["node", "services/gateway/src/main.ts"]);
  });

  it("has no package manager or compiler, and the Python the task runner's sandbox needs", async () => {
    const script = [
      "for tool in apt apt-get dpkg npm npx corepack pnpm gcc cc c++ make perl pip pip3; do",
      '  if command -v "$tool"; then echo "found $tool"; exit 1; fi',
      "done",
      "id -u",
      // The modules services/task-runner/sandbox/runner.py imports, with its flags.
      'python3 -I -S -B -c "import inspect, json, os, resource, sys, traceback, types; print(42)"',
    ].join("\n");
    const run = await runOnce(IMAGES.argus, ["sh", "-c", script]);
    expect(run).toEqual({ exitCode: 0, output: "10001\n42\n" });
  });

  it("runs every process of the stack read-only, as 10001, without capabilities", async () => {
    for (const name of [...SERVICE_REGISTRY.map((d) => d.name), GATEWAY.name]) {
      const info = await containerInfo(ref.stack.containers[name]!);
      expect(info, name).toMatchObject({
        running: true,
        readOnlyRoot: true,
        user: "10001:10001",
        capabilities: "0000000000000000",
        noNewPrivileges: true,
      });
    }
  });
});
