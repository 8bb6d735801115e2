import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import type { PoolClient } from "pg";
import { describe, expect, it } from "vitest";
import { runConsumer, type StoredEvent } from "../src/index.ts";
import {
  createSchema,
  eventually,
  liveStream,
  quietLogger,
  recordingLogger,
  schemaName,
  fileEnv,
} from "./support.ts";

const file = fileEnv();

const effects =
  "CREATE TABLE effects (seq bigserial PRIMARY KEY, event_id uuid NOT NULL, stream_id text NOT NULL, version int NOT NULL)";

/** A producing service (store + relay into a fresh stream) and a consuming service schema. */
async function setup(consumer: { maxDeliver?: number; ackWaitMs?: number } = {}) {
  const source = schemaName("producer");
  const schema = schemaName("consumer");
  await createSchema(file.env.pool, source);
  await createSchema(file.env.pool, schema, effects);
  const maxDeliver = consumer.maxDeliver ?? 5;
  const { root, stream, durable, store } = await liveStream(file, source, {
    maxDeliver,
    ackWaitMs: consumer.ackWaitMs ?? 10_000,
  });
  const run = async (
    handler: (tx: PoolClient, event: StoredEvent) => Promise<void>,
    options: {
      connection?: NatsConnection;
      concurrency?: number;
      logger?: ReturnType<typeof recordingLogger>;
      types?: ReadonlySet<string>;
      idempotent?: boolean;
    } = {},
  ) => {
    const runner = await runConsumer({
      nc: options.connection ?? file.nc,
      pool: file.env.pool,
      schema,
      stream,
      durable,
      concurrency: options.concurrency ?? 4,
      maxDeliver,
      handler,
      ...(options.types ? { types: options.types } : {}),
      ...(options.idempotent ? { idempotent: true } : {}),
      logger: options.logger ?? quietLogger,
      nakBackoff: { baseMs: 50, maxMs: 200 },
    });
    file.started(runner);
    return runner;
  };
  const record = async (tx: PoolClient, event: StoredEvent) => {
    await tx.query(
      `INSERT INTO "${schema}".effects (event_id, stream_id, version) VALUES ($1, $2, $3)`,
      [event.eventId, event.streamId, event.streamVersion],
    );
  };
  const effectRows = async () =>
    (
      await file.env.pool.query<{ event_id: string; stream_id: string; version: number }>(
        `SELECT event_id, stream_id, version FROM "${schema}".effects ORDER BY seq`,
      )
    ).rows;
  const consumerInfo = async () =>
    (await jetstreamManager(file.nc)).consumers.info(stream, durable);
  return { schema, root, stream, durable, store, run, record, effectRows, consumerInfo };
}

const changed = (n: number) => ({ type: "ItemChanged", data: { n } });

describe("runConsumer", () => {
  it("applies every event once, each stream's events in version order, with bounded concurrency", async () => {
    const t = await setup();
    let active = 0;
    let maxActive = 0;
    await t.run(
      async (tx, event) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        await t.record(tx, event);
        active--;
      },
      { concurrency: 8 },
    );
    for (let round = 0; round < 10; round++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, s) =>
          t.store.transaction((tx) => tx.append(`item-${s}`, "any", [changed(round)])),
        ),
      );
    }
    const rows = await eventually("200 effects", async () => {
      const r = await t.effectRows();
      return r.length >= 200 ? r : undefined;
    });
    expect(rows).toHaveLength(200);
    expect(maxActive).toBeLessThanOrEqual(8);
    expect(maxActive).toBeGreaterThan(1);
    for (let s = 0; s < 20; s++) {
      expect(rows.filter((r) => r.stream_id === `item-${s}`).map((r) => r.version)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
    }
  });

  it("acks the events of types it does not act on without handling them or marking them processed", async () => {
    const t = await setup();
    const seen: string[] = [];
    await t.run(
      async (tx, event) => {
        seen.push(event.type);
        await t.record(tx, event);
      },
      { types: new Set(["ItemChanged"]) },
    );
    // Not an event at all, on a subject of a type the consumer leaves alone: acked unread, where
    // a decode would have dead-lettered it.
    await jetstream(file.nc).publish(`${t.root}.svc.item.ItemNoted`, new TextEncoder().encode("{"));
    await t.store.transaction((tx) =>
      tx.append("item-1", "any", [
        { type: "ItemNoted", data: {} },
        changed(1),
        { type: "ItemNoted", data: {} },
        changed(2),
      ]),
    );
    const rows = await eventually("2 effects", async () => {
      const r = await t.effectRows();
      return r.length >= 2 ? r : undefined;
    });
    expect(rows.map((r) => r.version)).toEqual([2, 4]);
    await eventually("all acked", async () =>
      (await t.consumerInfo()).num_ack_pending === 0 ? true : undefined,
    );
    expect((await t.consumerInfo()).delivered.consumer_seq).toBe(5);
    expect(seen).toEqual(["ItemChanged", "ItemChanged"]);
    const dead = await file.env.pool.query(`SELECT 1 FROM "${t.schema}".dead_letters`);
    expect(dead.rowCount).toBe(0);
    const marked = await file.env.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${t.schema}".processed_events`,
    );
    expect(marked.rows[0]!.n).toBe(2);
  });

  it("runs an idempotent handler without a processed marker, and again on a redelivery", async () => {
    const t = await setup({ ackWaitMs: 1000 });
    const keyed = `"${t.schema}".keyed_effects`;
    await file.env.pool.query(`CREATE TABLE ${keyed} (event_id uuid PRIMARY KEY)`);
    let calls = 0;
    await t.run(
      async (tx, event) => {
        calls++;
        await tx.query(`INSERT INTO ${keyed} VALUES ($1) ON CONFLICT DO NOTHING`, [event.eventId]);
        // The first delivery's effect lands, but it fails before its ack: redelivered.
        if (calls === 1) throw new Error("lost before the ack");
      },
      { idempotent: true },
    );
    await t.store.transaction((tx) => tx.append("item-1", "any", [changed(1)]));
    await eventually("redelivered and acked", async () =>
      calls >= 2 && (await t.consumerInfo()).num_ack_pending === 0 ? true : undefined,
    );
    const effects = await file.env.pool.query(`SELECT event_id FROM ${keyed}`);
    expect(effects.rows).toHaveLength(1);
    const marked = await file.env.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${t.schema}".processed_events`,
    );
    expect(marked.rows[0]!.n).toBe(0);
  });

  it("has no second effect when a message is redelivered after its commit but before its ack", async () => {
    const t = await setup({ ackWaitMs: 1000 });
    // The first worker's NATS connection dies inside the handler: its transaction still
    // commits, but the ack can never reach the server.
    const doomed = await file.env.nats();
    let calls = 0;
    const first = await t.run(
      async (tx, event) => {
        calls++;
        await t.record(tx, event);
        await doomed.close();
      },
      { connection: doomed },
    );
    const [event] = await t.store.transaction((tx) => tx.append("item-1", 0, [changed(1)]));
    await eventually("the first effect", async () =>
      (await t.effectRows()).length === 1 ? true : undefined,
    );
    await first.stop();

    // A fresh worker gets the redelivery once the ack wait runs out.
    const logger = recordingLogger();
    await t.run(
      async (tx, e) => {
        calls++;
        await t.record(tx, e);
      },
      { logger },
    );
    await eventually("the redelivery", async () =>
      logger.lines.some(
        (l) =>
          l.msg === "redelivered event was already processed" &&
          l.fields?.eventId === event!.eventId,
      )
        ? true
        : undefined,
    );
    await eventually("the ack", async () =>
      (await t.consumerInfo()).num_ack_pending === 0 ? true : undefined,
    );
    expect(await t.effectRows()).toEqual([
      { event_id: event!.eventId, stream_id: "item-1", version: 1 },
    ]);
    expect(calls).toBe(1);
    expect((await t.consumerInfo()).delivered.consumer_seq).toBe(2);
  });

  it("retries a failing handler with a delayed nak, and applies it once when it succeeds", async () => {
    const t = await setup({ maxDeliver: 5 });
    const attempts: number[] = [];
    await t.run(async (tx, event) => {
      await t.record(tx, event);
      attempts.push(Date.now());
      // The effect above is rolled back with the failed attempts.
      if (attempts.length < 3) throw new Error(`flaky ${attempts.length}`);
    });
    await t.store.transaction((tx) => tx.append("item-1", 0, [changed(1)]));
    await eventually("one effect", async () =>
      (await t.effectRows()).length === 1 ? true : undefined,
    );
    await eventually("the ack", async () =>
      (await t.consumerInfo()).num_ack_pending === 0 ? true : undefined,
    );
    expect(attempts).toHaveLength(3);
    expect(await t.effectRows()).toHaveLength(1);
  });

  it("dead-letters and terminates a message that fails on its last delivery", async () => {
    const t = await setup({ maxDeliver: 3 });
    let attempts = 0;
    await t.run(async () => {
      attempts++;
      throw new Error("projection bug");
    });
    const [event] = await t.store.transaction((tx) => tx.append("item-1", 0, [changed(1)]));
    const letter = await eventually("a dead letter", async () => {
      const { rows } = await file.env.pool.query(`SELECT * FROM "${t.schema}".dead_letters`);
      return rows[0] as Record<string, unknown> | undefined;
    });
    expect(letter).toMatchObject({
      consumer: t.durable,
      stream: t.stream,
      event_id: event!.eventId,
      subject: `${t.root}.svc.item.ItemChanged`,
      deliveries: 3,
      error: "projection bug",
    });
    expect(JSON.parse((letter.payload as Buffer).toString("utf8"))).toMatchObject({
      eventId: event!.eventId,
    });
    await eventually("terminated", async () =>
      (await t.consumerInfo()).num_ack_pending === 0 ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(attempts).toBe(3);
    expect(await t.effectRows()).toEqual([]);
  });

  it("dead-letters an undecodable message at once", async () => {
    const t = await setup({ maxDeliver: 5 });
    let calls = 0;
    await t.run(async () => {
      calls++;
    });
    const id = crypto.randomUUID();
    const hdrs = headers();
    await jetstream(file.nc).publish(`${t.root}.svc.item.Garbage`, new Uint8Array([0x7b, 0xff]), {
      msgID: id,
      headers: hdrs,
    });
    const letter = await eventually("a dead letter", async () => {
      const { rows } = await file.env.pool.query(
        `SELECT event_id, deliveries, error FROM "${t.schema}".dead_letters`,
      );
      return rows[0] as Record<string, unknown> | undefined;
    });
    expect(letter).toMatchObject({ event_id: id, deliveries: 1 });
    expect(letter.error).toMatch(/not UTF-8 JSON/);
    expect(calls).toBe(0);
  });

  it("finishes and acks in-flight messages when stopped", async () => {
    const t = await setup();
    let started = 0;
    const runner = await t.run(async (tx, event) => {
      started++;
      await new Promise((resolve) => setTimeout(resolve, 400));
      await t.record(tx, event);
    });
    await t.store.transaction((tx) => tx.append("item-1", 0, [changed(1)]));
    await eventually("handler started", async () => (started > 0 ? true : undefined));
    await runner.stop();
    expect(await t.effectRows()).toHaveLength(1);
    await eventually(
      "acked",
      async () => ((await t.consumerInfo()).num_ack_pending === 0 ? true : undefined),
      3000,
    );
  });
});
