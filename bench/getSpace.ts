import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";
import {
  createTestDatabase,
  freePort,
  spawnProcess,
  startInfra,
  startStack,
  NO_RATE_LIMITS,
} from "@argus/testkit";
import type { Benchmark } from "./benchmark.ts";
import type { Target } from "./load.ts";

const baselineEntry = fileURLToPath(new URL("./baseline/server.ts", import.meta.url));

/**
 * GET /v2/spaces/{id} through the whole stack (gateway → identity over gRPC → Postgres) versus
 * bare Express + pg reading the same row from the same database.
 */
export async function getSpaceBenchmark(): Promise<Benchmark> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const { infra, stop: stopInfra } = await startInfra();
    cleanups.push(stopInfra);
    const db = await createTestDatabase(infra);
    cleanups.push(db.drop);
    const stack = await startStack({
      databaseUrl: db.url,
      // Neither the rate limit nor per-request logging should be what is measured.
      env: {
        ...NO_RATE_LIMITS,
        LOG_LEVEL: "warn",
      },
    });
    cleanups.push(stack.stop);
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const spaceId = await firstSpaceId(stack.baseUrl, headers);

    const port = await freePort();
    const baseline = await spawnProcess({
      name: "baseline",
      command: process.execPath,
      args: [baselineEntry],
      env: { DATABASE_URL: db.url, BASELINE_PORT: String(port) },
      readyWhen: async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
    });
    cleanups.push(() => baseline.stop());

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
  } catch (err) {
    await stop();
    throw err;
  }
}

async function firstSpaceId(baseUrl: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${baseUrl}/v2/spaces`, { headers });
  const body = (await res.json()) as { spaces?: { id: string }[] };
  const id = body.spaces?.[0]?.id;
  if (!res.ok || id === undefined) throw new Error(`GET /v2/spaces: ${res.status} without a space`);
  return id;
}

/** Both targets must answer 200 with the same JSON, or the comparison means nothing. */
async function expectSameBody(a: Target, b: Target): Promise<void> {
  const read = async (t: Target) => {
    const res = await fetch(t.url, { headers: t.headers });
    return { name: t.name, status: res.status, body: (await res.json()) as unknown };
  };
  const [ra, rb] = await Promise.all([read(a), read(b)]);
  if (ra.status !== 200 || rb.status !== 200 || !isDeepStrictEqual(ra.body, rb.body)) {
    const show = (r: typeof ra) => `${r.name}: ${r.status} ${JSON.stringify(r.body)}`;
    throw new Error(`targets disagree:\n${show(ra)}\n${show(rb)}`);
  }
}
