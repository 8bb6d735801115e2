import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { GATEWAY, callKeyEnv, entryOf, generateCallKeys, serviceEnv } from "@argus/platform";
import {
  freePort,
  spawnProcess,
  startLocalNats,
  startLocalPostgres,
  uniqueName,
  type RunningServer,
  type SpawnedProcess,
} from "@argus/testkit";

// Pods and containers start in no particular order, and Postgres or NATS restart: a process
// that finds them not (yet) answering must wait for them, not exit (issue 28, defect 4).

const root = fileURLToPath(new URL("../", import.meta.url));
const started: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
});

async function httpStatus(url: string): Promise<number> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
  return res?.status ?? 0;
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await sleep(200);
  }
}

function alive(p: SpawnedProcess): boolean {
  try {
    process.kill(p.pid, 0);
    return true;
  } catch {
    return false;
  }
}

it("a service and the gateway started before Postgres and NATS wait for them, then serve", async () => {
  const [pgPort, natsPort, grpcPort, probePort, httpPort] = await Promise.all(
    [1, 2, 3, 4, 5].map(() => freePort()),
  );
  const keys = generateCallKeys();
  const common = {
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    ARGUS_EVENTS_STREAM: uniqueName("EVENTS"),
    ARGUS_SUBJECT_ROOT: uniqueName("t"),
  };
  const names = serviceEnv("dataset");
  const service = await spawnProcess({
    name: "dataset",
    command: process.execPath,
    args: [entryOf("dataset")],
    cwd: root,
    env: {
      ...common,
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      [names.grpcPort]: String(grpcPort),
      [names.probePort]: String(probePort),
      ...callKeyEnv("dataset", keys),
    },
    // "Ready" here: it says it is waiting (the old code exited on the first refusal).
    readyWhen: async () => true,
    readyLine: /"msg":"postgres unreachable; retrying"/,
  });
  started.push(service);
  const gateway = await spawnProcess({
    name: "gateway",
    command: process.execPath,
    args: [entryOf(GATEWAY.name)],
    cwd: root,
    env: {
      ...common,
      ARGUS_HTTP_PORT: String(httpPort),
      ARGUS_OTLP_GRPC_PORT: "0",
      ARGUS_FLIGHT_PORT: "0",
      ARGUS_CURSOR_SECRET: "c".repeat(43),
      [serviceEnv("dataset").grpcUrl]: `127.0.0.1:${grpcPort}`,
      ...callKeyEnv(GATEWAY.name, keys),
    },
    readyWhen: async () => (await httpStatus(`http://127.0.0.1:${httpPort}/healthz`)) === 200,
    readyLine: /"msg":"no NATS for principal invalidations; serving uncached, retrying"/,
  });
  started.push(gateway);

  // A few seconds with nothing to connect to: both still run, neither serves a dead backend.
  await sleep(3_000);
  expect(alive(service), service.output()).toBe(true);
  expect(alive(gateway), gateway.output()).toBe(true);
  expect(await httpStatus(`http://127.0.0.1:${probePort}/readyz`)).toBe(0);

  const servers: RunningServer[] = await Promise.all([
    startLocalPostgres({ port: pgPort }),
    startLocalNats({ port: natsPort }),
  ]);
  started.push(...servers);

  await eventually(
    "the service ready once Postgres and NATS answer",
    async () => (await httpStatus(`http://127.0.0.1:${probePort}/readyz`)) === 200,
    60_000,
  );
  expect(service.output()).toMatch(/"msg":"postgres answers"/);
  expect(service.output()).toMatch(/"msg":"dataset listening"/);
  await eventually(
    "the gateway listening for principal invalidations once NATS answers",
    async () => /"msg":"listening for principal invalidations"/.test(gateway.output()),
    30_000,
  );
});
