import type { TestProject } from "vitest/node";
import { containerRuntimeProblem, missingImages } from "./containers.ts";
import { startContainerStack, type ContainerStack } from "./containerStack.ts";

export type ContainerTier = { stack: ContainerStack } | { skipped: string };

declare module "vitest" {
  export interface ProvidedContext {
    argusContainers: ContainerTier;
  }
}

/**
 * Vitest globalSetup of the `containers` project: the whole stack as containers
 * (containerStack.ts), shared by its files. Without a container engine or the images the tier
 * is skipped, saying why; ARGUS_REQUIRE_CONTAINERS=1 (CI) makes that a failure instead.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const problem = (await containerRuntimeProblem()) ?? (await missingImages());
  if (problem !== undefined) {
    if (process.env.ARGUS_REQUIRE_CONTAINERS === "1")
      throw new Error(`the container tier cannot run: ${problem}`);
    console.warn(`[testkit] container tier skipped: ${problem}`);
    project.provide("argusContainers", { skipped: problem });
    return;
  }
  const startedAt = Date.now();
  const logs = process.env.ARGUS_TESTKIT_LOGS;
  const running = await startContainerStack(
    logs ? { onLine: (line) => process.stderr.write(`${line}\n`) } : {},
  );
  console.info(
    `[testkit] container stack ready in ${Date.now() - startedAt} ms: gateway at ` +
      `${running.stack.baseUrl}, NATS ${running.stack.natsNodes.map((n) => n.name).join(", ")}`,
  );
  project.provide("argusContainers", { stack: running.stack });
  return running.stop;
}
