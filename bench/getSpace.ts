import { fileURLToPath } from "node:url";
import { freePort, spawnProcess } from "@argus/testkit";
import type { Benchmark } from "./benchmark.ts";
import { expectSameBody, withBenchStack } from "./stack.ts";

const baselineEntry = fileURLToPath(new URL("./baseline/server.ts", import.meta.url));

/**
 * GET /v2/spaces/{id} through the whole stack (gateway → identity over gRPC → Postgres) versus
 * bare Express + pg reading the same row from the same database.
 */
export async function getSpaceBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const spaceId = await firstSpaceId(stack.baseUrl, headers);

    const port = await freePort();
    const baseline = await spawnProcess({
      name: "baseline",
      command: process.execPath,
      args: [baselineEntry],
      env: { DATABASE_URL: databaseUrl, BASELINE_PORT: String(port) },
      readyWhen: async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
    });
    onStop(() => baseline.stop());

    const path = `/v2/spaces/${encodeURIComponent(spaceId)}`;
    const subject = {
      name: "stack",
      url: stack.baseUrl + path,
      headers,
      pids: { gateway: stack.processes.gateway!.pid, identity: stack.processes.identity!.pid },
    };
    const bare = {
      name: "baseline",
      url: `http://127.0.0.1:${port}${path}`,
      headers,
      pids: { baseline: baseline.pid },
    };
    await expectSameBody(subject, bare);
    return { name: "GET /v2/spaces/{id}", subject, baseline: bare, stop };
  });
}

async function firstSpaceId(baseUrl: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${baseUrl}/v2/spaces`, { headers });
  const body = (await res.json()) as { spaces?: { id: string }[] };
  const id = body.spaces?.[0]?.id;
  if (!res.ok || id === undefined) throw new Error(`GET /v2/spaces: ${res.status} without a space`);
  return id;
}
