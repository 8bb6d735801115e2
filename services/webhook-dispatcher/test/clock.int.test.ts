/**
 * The dispatcher takes "now" from the one clock in its deps: a replica started with a pinned
 * clock stamps its deliveries' timestamp headers with that clock, not the machine's. What a
 * subscription gets is cut by database time instead, so the pinned clock does not move it.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startService, type RunningService } from "@argus/service-host";
import { createLogger, fixedClock, uuidv7 } from "@argus/platform";
import {
  createTestDatabase,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { catalogEventsConsumer } from "../src/deliveries/deliveryConsumers.ts";
import { webhookDispatcher } from "../src/service.ts";

// Years away from the machine's clock, so the headers cannot match by reading it.
const PINNED = new Date("2031-05-06T07:08:09.500Z");

let db: TestDatabase;
let pool: pg.Pool;
let replica: RunningService;
let url = "";
let deliver: (headers: IncomingHttpHeaders) => void = () => undefined;
const server = createServer((req, res) => {
  deliver(req.headers);
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});

beforeAll(async () => {
  const infra = testInfra();
  db = await createTestDatabase(infra);
  const keys = testCallKeys();
  replica = await startService(
    webhookDispatcher,
    {
      DATABASE_URL: db.url,
      NATS_URL: infra.natsUrl,
      ARGUS_EVENTS_STREAM: uniqueName("WHCLOCK"),
      ARGUS_SUBJECT_ROOT: uniqueName("whclock"),
      WEBHOOK_DISPATCHER_GRPC_PORT: "0",
      WEBHOOK_DISPATCHER_PROBE_PORT: "0",
      // Neither is called: a delivery needs no look-ups.
      IDENTITY_GRPC_URL: "127.0.0.1:1",
      CATALOG_GRPC_URL: "127.0.0.1:1",
      ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
      ...keys.env("webhook-dispatcher"),
    },
    createLogger({ service: "webhooks-clock", level: "warn" }),
    { clock: fixedClock(PINNED) },
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=webhooks", max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await replica?.stop();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await db?.drop();
});

it("a delivery's timestamp headers are the pinned clock's, in whole seconds", async () => {
  const webhook = uuidv7();
  const event = uuidv7();
  // The rows the API and the consumer would have made (both tested end to end elsewhere).
  await pool.query(
    `insert into webhooks (id, account_id, organization_id, name, description, url, auth_type,
       signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id, created_at,
       updated_at)
     values ($1, $2, $3, 'clock', '', $4, 'BEARER', '', 5000, '{}', false, '', now(), now())`,
    [webhook, uuidv7(), uuidv7(), url],
  );
  const received = new Promise<IncomingHttpHeaders>((resolve) => (deliver = resolve));
  await pool.query(
    `insert into deliveries (event_id, webhook_id, event, payload)
     values ($1::uuid, $2, 'prompt.version.created', json_build_object('event_id', $1::text)::text)`,
    [event, webhook],
  );
  await pool.query("select pg_notify('argus_webhook_deliveries', '')");
  const headers = await received;
  const seconds = String(Math.floor(PINNED.getTime() / 1000));
  expect(headers["webhook-id"]).toBe(event);
  expect(headers["webhook-timestamp"]).toBe(seconds);
  expect(headers["x-arize-webhook-timestamp"]).toBe(seconds);
});

it("a subscription gets the events recorded after it, not one already on its way", async () => {
  const [webhook, prompt, space] = [uuidv7(), uuidv7(), uuidv7()];
  await pool.query(
    `insert into webhooks (id, account_id, organization_id, name, description, url, auth_type,
       signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id, created_at,
       updated_at)
     values ($1, $2, $3, 'cut-off', '', $4, 'BEARER', '', 5000, '{}', false, '', now(), now())`,
    [webhook, uuidv7(), uuidv7(), url],
  );
  const { rows } = await pool.query<{ active_from: Date }>(
    `insert into webhook_subscriptions (id, account_id, organization_id, webhook_id, source_type,
       source_id, space_id, event, created_at)
     select $1, account_id, organization_id, id, 'PROMPT', $2, $3, 'PROMPT_VERSION_CREATED', $4
       from webhooks where id = $5
     returning active_from`,
    [uuidv7(), prompt, space, PINNED, webhook],
  );
  const activeFrom = rows[0]!.active_from;
  const versionCreated = (recordedAt: Date) => ({
    globalPosition: 1n,
    transactionId: 1n,
    streamId: `prompt-${prompt}`,
    streamVersion: 1,
    eventId: uuidv7(),
    type: "PromptVersionCreated",
    data: { id: uuidv7(), prompt_id: prompt, space_id: space, commit_hash: "c", created_at: "" },
    metadata: {},
    recordedAt,
  });
  const before = versionCreated(new Date(activeFrom.getTime() - 1));
  const after = versionCreated(new Date(activeFrom.getTime() + 1));
  const consumer = catalogEventsConsumer({ subjectRoot: "unused", cascade: undefined as never });
  const client = await pool.connect();
  try {
    for (const event of [before, after]) await consumer.handler(client, event);
  } finally {
    client.release();
  }
  const made = await pool.query<{ event_id: string }>(
    "select event_id from deliveries where webhook_id = $1",
    [webhook],
  );
  expect(made.rows.map((r) => r.event_id)).toEqual([after.eventId]);
});
