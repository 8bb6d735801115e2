/**
 * Two dispatcher replicas on one database, as Kubernetes runs them: every delivery is claimed
 * by exactly one of them (the claim's conditional update), so 50 deliveries are 50 requests at
 * the receiver, each event once, and 50 recorded attempts — nothing dropped, nothing doubled.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { uuidv7 } from "@argus/platform";
import { startDispatcherUnderTest, type DispatcherUnderTest } from "./dispatcherUnderTest.ts";

const DELIVERIES = 50;

const received = new Map<string, number>();
let d: DispatcherUnderTest;

beforeAll(async () => {
  d = await startDispatcherUnderTest((req, res) => {
    const id = String(req.headers["webhook-id"]);
    received.set(id, (received.get(id) ?? 0) + 1);
    req.resume();
    // A little work at the endpoint, so both replicas have deliveries in flight at once.
    req.on("end", () => setTimeout(() => res.writeHead(204).end(), 20));
  });
  for (const i of [1, 2]) await d.replica(`webhooks-${i}`);
});

afterAll(() => d?.stop());

it(`two replicas deliver ${DELIVERIES} events exactly once each`, async () => {
  const webhook = uuidv7();
  await d.insertWebhook(webhook, "replicas");
  const events = Array.from({ length: DELIVERIES }, () => uuidv7());
  await d.pool.query(
    `insert into deliveries (event_id, webhook_id, event, payload)
     select e, $2, 'prompt.version.created', json_build_object('event_id', e)::text
       from unnest($1::uuid[]) as e`,
    [events, webhook],
  );
  await d.pool.query("select pg_notify('argus_webhook_deliveries', '')");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await d.pool.query<{ n: number }>(
      "select count(*)::int as n from deliveries where state = 'delivered'",
    );
    if (rows[0]!.n === DELIVERIES) break;
    if (Date.now() > deadline) throw new Error(`${rows[0]!.n} of ${DELIVERIES} delivered`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect([...received.keys()].sort()).toEqual([...events].sort());
  expect([...received.values()].every((n) => n === 1)).toBe(true);
  const attempts = await d.pool.query<{ attempt_number: number }>(
    "select attempt_number from delivery_attempts where webhook_id = $1",
    [webhook],
  );
  expect(attempts.rows).toHaveLength(DELIVERIES);
  expect(attempts.rows.every((a) => a.attempt_number === 1)).toBe(true);
});
