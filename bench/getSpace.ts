import { fileURLToPath } from "node:url";
import { freePort, spawnProcess, type Stack } from "@argus/testkit";
import type { Target } from "./load.ts";
import type { Benchmark } from "./benchmark.ts";
import { expectSameBody, withBenchStack } from "./stack.ts";

const baselineEntry = fileURLToPath(new URL("./baseline/server.ts", import.meta.url));
const twoHopEntry = fileURLToPath(new URL("./baseline/twoHop.ts", import.meta.url));

/** A bare baseline process on a port of its own, ready when its /readyz answers. */
async function spawnBare(name: string, entry: string, env: Record<string, string>, port: number) {
  return spawnProcess({
    name,
    command: process.execPath,
    args: [entry],
    env: {
      ...env,
      BASELINE_PORT: String(port),
      // Profiled beside the stack's processes when asked (bench/README.md).
      ...(process.env.BENCH_CPU_PROF_DIR && {
        NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`,
      }),
    },
    readyWhen: async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok,
  });
}

/**
 * GET /v2/spaces/{id} through the whole stack (gateway → identity over gRPC → Postgres) versus
 * bare Express + pg reading the same row from the same database.
 */
export async function getSpaceBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const spaceId = await firstSpaceId(stack.baseUrl, headers);

    const port = await freePort();
    const baseline = await spawnBare(
      "baseline",
      baselineEntry,
      { DATABASE_URL: databaseUrl },
      port,
    );
    onStop(() => baseline.stop());

    const path = `/v2/spaces/${encodeURIComponent(spaceId)}`;
    const subject = stackTarget(stack, path, headers);
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

/** The stack's gateway as a target, with the processes whose CPU counts. */
function stackTarget(stack: Stack, path: string, headers: Record<string, string>): Target {
  return {
    name: "stack",
    url: stack.baseUrl + path,
    headers,
    pids: { gateway: stack.processes.gateway!.pid, identity: stack.processes.identity!.pid },
  };
}

async function firstSpaceId(baseUrl: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${baseUrl}/v2/spaces`, { headers });
  const body = (await res.json()) as { spaces?: { id: string }[] };
  const id = body.spaces?.[0]?.id;
  if (!res.ok || id === undefined) throw new Error(`GET /v2/spaces: ${res.status} without a space`);
  return id;
}

/**
 * The two-hop floor (`baseline/twoHop.ts`) beside the stack, on the stack's database; its back
 * publishes the events of its writes on `natsUrl` when given.
 */
export async function spawnTwoHop(
  databaseUrl: string,
  onStop: (cleanup: () => Promise<unknown>) => void,
  natsUrl?: string,
): Promise<{ port: number; pids: Record<string, number>; auditPid?: number }> {
  const db = { DATABASE_URL: databaseUrl, ...(natsUrl && { NATS_URL: natsUrl }) };
  const frontPort = await freePort();
  const backProbe = await freePort();
  const backPort = await freePort();
  const hop = { ...db, BACK_PORT: String(backPort) };
  const back = await spawnBare("back", twoHopEntry, { ...hop, TWO_HOP: "back" }, backProbe);
  onStop(() => back.stop());
  const front = await spawnBare("front", twoHopEntry, { ...hop, TWO_HOP: "front" }, frontPort);
  onStop(() => front.stop());
  const pids = { front: front.pid, back: back.pid };
  if (!natsUrl) return { port: frontPort, pids };
  // The audit log's consumer, for the PATCHes sent under `/audited` (baseline/audit.ts).
  const audit = await spawnBare(
    "audit",
    twoHopEntry,
    { ...db, TWO_HOP: "audit" },
    await freePort(),
  );
  onStop(() => audit.stop());
  return { port: frontPort, pids, auditPid: audit.pid };
}

/**
 * The floor of the shape itself: bare Express in front of one gRPC hop to a bare service
 * running the same query (`baseline/twoHop.ts`: no authentication, validation or tracing,
 * JSON on the wire) versus the bare one-process baseline. What the whole stack cannot beat.
 */
export async function getSpaceFloorBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const spaceId = await firstSpaceId(stack.baseUrl, headers);
    const barePort = await freePort();
    const bareProcess = await spawnBare(
      "baseline",
      baselineEntry,
      { DATABASE_URL: databaseUrl },
      barePort,
    );
    onStop(() => bareProcess.stop());
    const twoHop = await spawnTwoHop(databaseUrl, onStop);

    const path = `/v2/spaces/${encodeURIComponent(spaceId)}`;
    const subject = {
      name: "two-hop",
      url: `http://127.0.0.1:${twoHop.port}${path}`,
      headers,
      pids: twoHop.pids,
    };
    const bare = {
      name: "baseline",
      url: `http://127.0.0.1:${barePort}${path}`,
      headers,
      pids: { baseline: bareProcess.pid },
    };
    await expectSameBody(subject, bare);
    await expectSameBody(subject, { ...bare, url: stack.baseUrl + path });
    return {
      name: "GET /v2/spaces/{id}: the two-process shape's floor",
      subject,
      baseline: bare,
      stop,
    };
  });
}

/**
 * S1 in one run: the stack against the two-hop floor itself, their rounds interleaved, so the
 * ratio is not two ratios taken minutes apart on a machine whose speed drifts.
 */
export async function getSpaceVersusFloorBenchmark(): Promise<Benchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const headers = { authorization: `Bearer ${stack.apiKey}` };
    const spaceId = await firstSpaceId(stack.baseUrl, headers);
    const twoHop = await spawnTwoHop(databaseUrl, onStop);
    const path = `/v2/spaces/${encodeURIComponent(spaceId)}`;
    const subject = stackTarget(stack, path, headers);
    const floor = {
      name: "two-hop",
      url: `http://127.0.0.1:${twoHop.port}${path}`,
      headers,
      pids: twoHop.pids,
    };
    await expectSameBody(subject, floor);
    return {
      name: "GET /v2/spaces/{id}: the stack against its floor",
      subject,
      baseline: floor,
      stop,
    };
  });
}
