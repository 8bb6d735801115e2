/**
 * The dispatcher takes "now" from the one clock in its deps: a replica started with a pinned
 * clock stamps its deliveries' timestamp headers with that clock, not the machine's. What a
 * subscription gets is cut by database time instead, so the pinned clock does not move it.
 */
import type { IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fixedClock, uuidv7 } from "@argus/platform";
import { catalogEventsConsumer } from "../src/deliveries/deliveryConsumers.ts";
import { startDispatcherUnderTest, type DispatcherUnderTest } from "./dispatcherUnderTest.ts";

// Years away from the machine's clock, so the headers cannot match by reading it.
const PINNED = new Date("2031-05-06T07:08:09.500Z");

let d: DispatcherUnderTest;
let deliver: (headers: IncomingHttpHeaders) => void = () => undefined;

beforeAll(async () => {
  d = await startDispatcherUnderTest((req, res) => {
    deliver(req.headers);
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  await d.replica("webhooks-clock", { clock: fixedClock(PINNED) });
});

afterAll(() => d?.stop());

it("a delivery's timestamp headers are the pinned clock's, in whole seconds", async () => {
  const webhook = uuidv7();
  const event = uuidv7();
  await d.insertWebhook(webhook, "clock");
  const received = new Promise<IncomingHttpHeaders>((resolve) => (deliver = resolve));
  await d.pool.query(
    `insert into deliveries (event_id, webhook_id, event, payload)
     values ($1::uuid, $2, 'prompt.version.created', json_build_object('event_id', $1::text)::text)`,
    [event, webhook],
  );
  await d.pool.query("select pg_notify('argus_webhook_deliveries', '')");
  const headers = await received;
  const seconds = String(Math.floor(PINNED.getTime() / 1000));
  expect(headers["webhook-id"]).toBe(event);
  expect(headers["webhook-timestamp"]).toBe(seconds);
  expect(headers["x-arize-webhook-timestamp"]).toBe(seconds);
});

it("a subscription gets the events recorded after it, not one already on its way", async () => {
  const [webhook, prompt, space] = [uuidv7(), uuidv7(), uuidv7()];
  await d.insertWebhook(webhook, "cut-off");
  const { rows } = await d.pool.query<{ active_from: Date }>(
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
  const client = await d.pool.connect();
  try {
    for (const event of [before, after]) await consumer.handler(client, event);
  } finally {
    client.release();
  }
  const made = await d.pool.query<{ event_id: string }>(
    "select event_id from deliveries where webhook_id = $1",
    [webhook],
  );
  expect(made.rows.map((r) => r.event_id)).toEqual([after.eventId]);
});
