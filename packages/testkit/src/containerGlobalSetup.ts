import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { containerRuntimeProblem, missingImages } from "./containers.ts";
import { startContainerStack, type RunningContainerStack } from "./containerStack.ts";
import { listenLocal } from "./startOnFreePort.ts";

/**
 * What the `containers` project's files are given: where to ask for the stack, or why the tier
 * is skipped.
 */
export type ContainerTier = { control: string } | { skipped: string };

declare module "vitest" {
  export interface ProvidedContext {
    argusContainers: ContainerTier;
  }
}

/**
 * Vitest globalSetup of the `containers` project. Vitest runs every project's globalSetup when
 * the run begins; the stack (containerStack.ts) starts only when the first file of the tier asks
 * for it, over a loopback endpoint of this process, so ten containers do not compete with the
 * other tiers for the CPU. One stack for all the files; stopped at the end of the run. Without a
 * container engine or the images the tier is skipped, saying why; ARGUS_REQUIRE_CONTAINERS=1
 * (CI) makes that a failure instead.
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
  let running: Promise<RunningContainerStack> | undefined;
  const start = async () => {
    const startedAt = Date.now();
    const logs = process.env.ARGUS_TESTKIT_LOGS;
    const r = await startContainerStack(
      logs ? { onLine: (line) => process.stderr.write(`${line}\n`) } : {},
    );
    console.info(
      `[testkit] container stack ready in ${Date.now() - startedAt} ms: gateway at ` +
        `${r.stack.baseUrl}, NATS ${r.stack.natsNodes.map((n) => n.name).join(", ")}`,
    );
    return r;
  };
  const server = createServer((req, res) => {
    if (req.url !== "/stack") {
      res.writeHead(404).end();
      return;
    }
    // A start that failed fails every file alike, without a second try.
    running ??= start();
    running.then(
      (r) =>
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(r.stack)),
      (err: unknown) =>
        res.writeHead(500).end(err instanceof Error ? (err.stack ?? err.message) : String(err)),
    );
  });
  // The answer waits for the whole stack: no socket timeout.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  const port = await listenLocal(server);
  project.provide("argusContainers", { control: `http://127.0.0.1:${port}/stack` });
  return async () => {
    server.close();
    const r = await running?.catch(() => undefined);
    await r?.stop();
  };
}
