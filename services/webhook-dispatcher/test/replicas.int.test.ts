/**
 * Two dispatcher replicas on one database, as Kubernetes runs them: every delivery is claimed
 * by exactly one of them (the claim's conditional update), so 50 deliveries are 50 requests at
 * the receiver, each event once, and 50 recorded attempts — nothing dropped, nothing doubled.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startService, type RunningService } from "@argus/service-host";
import { createLogger, uuidv7 } from "@argus/platform";
import {
  createTestDatabase,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { webhookDispatcher } from "../src/service.ts";

const DELIVERIES = 50;

let db: TestDatabase;
let pool: pg.Pool;
const replicas: RunningService[] = [];
const received = new Map<string, number>();
let url = "";
const server = createServer((req, res) => {
  const id = String(req.headers["webhook-id"]);
  received.set(id, (received.get(id) ?? 0) + 1);
  req.resume();
  // A little work at the endpoint, so both replicas have deliveries in flight at once.
  req.on("end", () => setTimeout(() => res.writeHead(204).end(), 20));
});

beforeAll(async () => {
  const infra = testInfra();
  db = await createTestDatabase(infra);
  const keys = testCallKeys();
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    ARGUS_EVENTS_STREAM: uniqueName("WH"),
    ARGUS_SUBJECT_ROOT: uniqueName("wh"),
    WEBHOOK_DISPATCHER_GRPC_PORT: "0",
    WEBHOOK_DISPATCHER_PROBE_PORT: "0",
    // Neither is called: deliveries need no look-ups.
    IDENTITY_GRPC_URL: "127.0.0.1:1",
    CATALOG_GRPC_URL: "127.0.0.1:1",
    ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
    ...keys.env("webhook-dispatcher"),
  };
  for (const i of [1, 2])
    replicas.push(
      await startService(
        webhookDispatcher,
        env,
        createLogger({ service: `webhooks-${i}`, level: "warn" }),
      ),
    );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=webhooks", max: 2 });
});

afterAll(async () => {
  await pool?.end();
  for (const r of replicas) await r.stop();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await db?.drop();
});

it(`two replicas deliver ${DELIVERIES} events exactly once each`, async () => {
  const webhook = uuidv7();
  // The rows the API and the consumer would have made (both tested end to end elsewhere).
  await pool.query(
    `insert into webhooks (id, account_id, organization_id, name, description, url, auth_type,
       signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id, created_at,
       updated_at)
     values ($1, $2, $3, 'replicas', '', $4, 'BEARER', '', 5000, '{}', false, '', now(), now())`,
    [webhook, uuidv7(), uuidv7(), url],
  );
  const events = Array.from({ length: DELIVERIES }, () => uuidv7());
  await pool.query(
    `insert into deliveries (event_id, webhook_id, event, payload)
     select e, $2, 'prompt.version.created', json_build_object('event_id', e)::text
       from unnest($1::uuid[]) as e`,
    [events, webhook],
  );
  await pool.query("select pg_notify('argus_webhook_deliveries', '')");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "select count(*)::int as n from deliveries where state = 'delivered'",
    );
    if (rows[0]!.n === DELIVERIES) break;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} of ${DELIVERIES} delivered`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect([...received.keys()].sort()).toEqual([...events].sort());
  expect([...received.values()].every((n) => n === 1)).toBe(true);
  const attempts = await pool.query<{ attempt_number: number }>(
    "select attempt_number from delivery_attempts where webhook_id = $1",
    [webhook],
  );
  expect(attempts.rows).toHaveLength(DELIVERIES);
  expect(attempts.rows.every((a) => a.attempt_number === 1)).toBe(true);
});
