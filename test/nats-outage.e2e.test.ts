/**
 * A NATS outage longer than the ~20 s after which the services used to give up reconnecting
 * (issue 29, item 1): the API keeps taking writes into Postgres, every service's /readyz says
 * NATS is gone while it is, and once nats-server is back (same port, same JetStream store) the
 * relays publish the backlog and the consumers work it off — the audit log and the webhook
 * deliveries catch up within 30 s, with no process restarted.
 *
 * The outage lasts ARGUS_TEST_NATS_OUTAGE_MS (default 25 s: longer than the old give-up, which
 * is what this test is about; the reconnect mechanism does not change with the length, and the
 * fault soak runs a 90 s one).
 */
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SERVICE_REGISTRY, serviceEnv } from "@argus/platform";
import { startApi, type Api } from "./support.ts";
import { startReceiver, type Receiver } from "./webhook-receiver.ts";

const OUTAGE_MS = Number(process.env.ARGUS_TEST_NATS_OUTAGE_MS ?? 25_000);
const CATCH_UP_MS = 30_000;

let api: Api;
let db: pg.Pool;
let receiver: Receiver;

beforeAll(async () => {
  api = await startApi({ env: { ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true" } });
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL, max: 2 });
  db.on("error", () => undefined);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await db?.end();
  await api?.stop();
});

const version = {
  commit_message: "v",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
};

async function readyz(service: string): Promise<number> {
  const port = api.stack.env[serviceEnv(service).probePort];
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, {
    signal: AbortSignal.timeout(3_000),
  }).catch(() => undefined);
  return res?.status ?? 0;
}

/** Catalog events since `since` that the audit log or the receiver has not got yet. */
async function missing(since: Date): Promise<{ audit: string[]; webhooks: string[] }> {
  const { rows: events } = await db.query<{ event_id: string; event_type: string }>(
    "select event_id::text, event_type from catalog.events where recorded_at >= $1",
    [since],
  );
  const { rows: audited } = await db.query<{ event_id: string }>(
    "select event_id::text from identity.audit_log where event_id = any($1::uuid[])",
    [events.map((e) => e.event_id)],
  );
  const inAudit = new Set(audited.map((r) => r.event_id));
  const delivered = new Set(receiver.received.map((r) => String(r.headers["webhook-id"])));
  return {
    audit: events.filter((e) => !inAudit.has(e.event_id)).map((e) => e.event_id),
    webhooks: events
      .filter((e) => e.event_type === "PromptVersionCreated" && !delivered.has(e.event_id))
      .map((e) => e.event_id),
  };
}

it(`rides out a ${OUTAGE_MS / 1000} s NATS outage: audit log and webhooks catch up within 30 s, nothing restarted`, async () => {
  const nats = api.stack.natsServer!;
  const orgId = (await api.ok("GET", "/v2/organizations")).organizations[0].id;
  const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id;
  const webhook = await api.ok("POST", "/v2/webhooks", {
    organization_id: orgId,
    name: "outage",
    url: receiver.url,
  });
  const prompt = await api.ok("POST", "/v2/prompts", {
    space_id: spaceId,
    name: "outage",
    version,
  });
  await api.ok("POST", "/v2/webhook-subscriptions", {
    webhook_id: webhook.id,
    source_type: "PROMPT",
    source_id: prompt.id,
    event: "PROMPT_VERSION_CREATED",
  });
  // The pipeline works before the outage.
  await api.ok("POST", `/v2/prompts/${prompt.id}/versions`, version);
  await receiver.waitFor(1);
  const pids = Object.fromEntries(Object.entries(api.stack.processes).map(([n, p]) => [n, p.pid]));

  const since = new Date();
  await nats.crash();
  const outageEnds = Date.now() + OUTAGE_MS;
  let written = 0;
  let sawUnready = false;
  while (Date.now() < outageEnds) {
    // Writes go on: they land in Postgres and wait in the outbox.
    const res = await api.req("POST", `/v2/prompts/${prompt.id}/versions`, { body: version });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    written++;
    if ((await readyz("catalog")) === 503) sawUnready = true;
    await sleep(Math.min(2_000, Math.max(0, outageEnds - Date.now())));
  }
  expect(sawUnready).toBe(true);
  await nats.restart();
  const back = Date.now();

  let left = await missing(since);
  while (left.audit.length + left.webhooks.length > 0 && Date.now() - back < CATCH_UP_MS) {
    await sleep(250);
    left = await missing(since);
  }
  const caughtUpMs = Date.now() - back;
  expect(left, `still missing ${caughtUpMs} ms after NATS came back`).toEqual({
    audit: [],
    webhooks: [],
  });
  expect(caughtUpMs).toBeLessThan(CATCH_UP_MS);
  expect(written).toBeGreaterThan(5);
  // Every service is ready again, and none was restarted to get there.
  for (const d of SERVICE_REGISTRY) {
    let status = await readyz(d.name);
    for (let i = 0; i < 40 && status !== 200; i++) {
      await sleep(250);
      status = await readyz(d.name);
    }
    expect([d.name, status]).toEqual([d.name, 200]);
  }
  for (const [name, p] of Object.entries(api.stack.processes)) {
    expect(p.pid, name).toBe(pids[name]);
    expect(() => process.kill(p.pid, 0), `${name} is alive`).not.toThrow();
  }
  console.info(
    `[nats-outage] ${OUTAGE_MS} ms outage, ${written} writes during it; caught up ${caughtUpMs} ms after NATS returned`,
  );
}, 240_000);
