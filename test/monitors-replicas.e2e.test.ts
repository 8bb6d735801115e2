/**
 * Two tracing replicas evaluating the same scheduled monitors (issue 30): they share the work
 * under leases, and every change of status is ONE event and ONE delivery, however many rounds
 * both replicas run; when one replica goes away, the other carries on.
 */
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, spawnProcess, type SpawnedProcess } from "@argus/testkit";
import { latencyMonitor, sendTimedSpans, spansOf, verified } from "./monitors-support.ts";
import { startApi, type Api, type Json } from "./support.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";

const MONITORS = 20;
let api: Api;
let db: pg.Pool;
let second: SpawnedProcess | undefined;
let receiver: Receiver;
let secret: string;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const env = {
    ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
    ARGUS_MONITOR_MIN_CADENCE_SECONDS: "1",
    ARGUS_MONITOR_POLL_MS: "100",
    // A replica that goes away leaves its claims for at most this long.
    ARGUS_MONITOR_LEASE_MS: "3000",
  };
  api = await startApi({ env });
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL, max: 2 });
  const port = async () => String(await freePort());
  second = await spawnProcess({
    name: "tracing-2",
    command: process.execPath,
    args: ["services/tracing/src/main.ts"],
    cwd: fileURLToPath(new URL("../", import.meta.url)),
    env: {
      ...api.stack.env,
      ...api.stack.processEnv.tracing,
      ...env,
      TRACING_GRPC_PORT: await port(),
      TRACING_PROBE_PORT: await port(),
    },
    readyWhen: async () => true,
    readyLine: /"msg":"tracing listening"/,
    timeoutMs: 60_000,
  });
  receiver = await startReceiver();
}, 300_000);
afterAll(async () => {
  await second?.stop();
  await receiver?.close();
  await db?.end();
  await api?.stop();
});

const deliveries = () => receiver.received.map((r) => verified(secret, r));

async function untilDelivered(count: number): Promise<Json[]> {
  const deadline = Date.now() + 30_000;
  while (receiver.received.length < count) {
    if (Date.now() > deadline)
      throw new Error(`${receiver.received.length} deliveries, wanted ${count}`);
    await sleep(100);
  }
  return deliveries();
}

const changes = async (ids: string[]) =>
  (
    await db.query<{ status: string; n: number }>(
      `select data->>'status' as status, count(*)::int as n from tracing.events
        where event_type = 'MonitorStatusChanged' and stream_id = any($1::text[])
        group by 1 order by 1`,
      [ids.map((id) => `monitor-${Buffer.from(id, "base64").toString().split(":")[1]}`)],
    )
  ).rows;

describe("two tracing replicas, one schedule", () => {
  it("every change of status is one event and one delivery; one replica gone, the other carries on", async () => {
    const orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
    const spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
    const hook = await api.ok("POST", "/v2/webhooks", {
      organization_id: orgId,
      name: "replicas",
      url: receiver.url,
      auth_type: "HMAC_SHA256",
    });
    secret = hook.signing_secret;
    const project = `replicas-${Date.now()}`;
    const projectId = await sendTimedSpans(api, spaceId, project, spansOf(10, 800));
    const ids: string[] = [];
    for (let i = 0; i < MONITORS; i++)
      ids.push(
        (
          await api.ok(
            "POST",
            "/v2/monitors",
            latencyMonitor(projectId, `replicated-${i}`, {
              manual_evaluation_enabled: false,
              scheduled_runtime: { enabled: true, cadence_seconds: 1 },
              notification_configs: [{ type: "WEBHOOK", id: hook.id }],
            }),
          )
        ).id,
      );
    await untilDelivered(MONITORS);
    // Several more rounds of both replicas: nothing more to tell.
    await sleep(3_000);
    const triggered = deliveries();
    expect(triggered).toHaveLength(MONITORS);
    expect(new Set(triggered.map((p) => p.data.monitor_id))).toEqual(new Set(ids));
    expect(triggered.every((p) => p.event === "monitor.triggered")).toBe(true);
    expect(await changes(ids)).toEqual([{ status: "TRIGGERED", n: MONITORS }]);
    // Both replicas evaluated on the schedule.
    const evaluations = await db.query<{ n: number }>(
      "select count(*)::int as n from tracing.monitor_evaluations where trigger = 'SCHEDULE'",
    );
    expect(evaluations.rows[0]!.n).toBeGreaterThan(MONITORS * 2);

    // One replica goes away; the latency recovers; the other clears every monitor, once.
    await second!.stop();
    second = undefined;
    await sendTimedSpans(api, spaceId, project, spansOf(400, 20));
    await untilDelivered(2 * MONITORS);
    await sleep(3_000);
    const all = deliveries();
    expect(all).toHaveLength(2 * MONITORS);
    expect(all.filter((p) => p.event === "monitor.cleared")).toHaveLength(MONITORS);
    expect(await changes(ids)).toEqual([
      { status: "CLEARED", n: MONITORS },
      { status: "TRIGGERED", n: MONITORS },
    ]);
  }, 120_000);
});
