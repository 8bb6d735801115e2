import { jetstreamManager } from "@nats-io/jetstream";
import type { PoolClient } from "pg";
import { describe, expect, it } from "vitest";
import { ensureConsumer, runConsumer, type StoredEvent } from "../src/index.ts";
import { replay } from "../src/consumers/replay.ts";
import {
  createSchema,
  eventually,
  liveStream,
  quietLogger,
  schemaName,
  fileEnv,
} from "./support.ts";

const file = fileEnv();

describe("replay", () => {
  it("rebuilds a projection from Postgres alone, equal to the live one, and live redeliveries change nothing", async () => {
    const source = schemaName("source");
    const schema = schemaName("projection");
    await createSchema(file.env.pool, source);
    await createSchema(
      file.env.pool,
      schema,
      "CREATE TABLE counts (stream_id text PRIMARY KEY, n int NOT NULL, last_version int NOT NULL)",
    );
    const project = async (tx: PoolClient, event: StoredEvent) => {
      await tx.query(
        `INSERT INTO "${schema}".counts (stream_id, n, last_version) VALUES ($1, 1, $2)
         ON CONFLICT (stream_id) DO UPDATE SET n = counts.n + 1, last_version = excluded.last_version`,
        [event.streamId, event.streamVersion],
      );
    };
    const counts = async () =>
      (
        await file.env.pool.query(
          `SELECT stream_id, n, last_version FROM "${schema}".counts ORDER BY stream_id`,
        )
      ).rows;

    // The live path: relay → JetStream → consumer.
    const consumer = { maxDeliver: 3, ackWaitMs: 5000 };
    const { root, stream, durable, store } = await liveStream(file, source, consumer);
    const projecting = () =>
      runConsumer({
        nc: file.nc,
        pool: file.env.pool,
        schema,
        stream,
        durable,
        concurrency: 4,
        maxDeliver: consumer.maxDeliver,
        handler: project,
        logger: quietLogger,
      });
    const live = await projecting();
    for (let i = 0; i < 30; i++) {
      await store.transaction(async (tx) => {
        await tx.append(`item-${i % 7}`, "any", [{ type: "ItemChanged", data: { i } }]);
        await tx.append(`note-${i % 3}`, "any", [{ type: "NoteAdded", data: { i } }]);
      });
    }
    await eventually("the live projection", async () => {
      const rows = await counts();
      return rows.reduce((sum, r) => sum + r.n, 0) === 60 ? rows : undefined;
    });
    await live.stop();
    const liveCounts = await counts();

    // Rebuild: clear the table with the reset, then replay from the events table.
    const rebuild = (options: Pick<Parameters<typeof replay>[0], "batchSize" | "filter"> = {}) =>
      replay({
        pool: file.env.pool,
        schema,
        consumer: durable,
        eventsSchema: source,
        handler: project,
        clear: (tx) => tx.query(`TRUNCATE "${schema}".counts`).then(() => undefined),
        ...options,
      });
    const result = await rebuild({ batchSize: 7 });
    expect(result.events).toBe(60);
    expect(await counts()).toEqual(liveCounts);
    const checkpoint = await file.env.pool.query(
      `SELECT global_position::text FROM "${schema}".consumer_checkpoints WHERE consumer = $1`,
      [durable],
    );
    expect(BigInt(checkpoint.rows[0].global_position)).toBe(result.checkpoint.globalPosition);

    // A filter limits the rebuild to what the consumer subscribes to.
    const filtered = await rebuild({ filter: (e) => e.type === "ItemChanged" });
    expect(filtered.events).toBe(30);
    expect((await counts()).every((r) => r.stream_id.startsWith("item-"))).toBe(true);

    // Back to everything; then JetStream redelivers it all (a reset consumer): no double counting.
    await rebuild();
    const jsm = await jetstreamManager(file.nc);
    await jsm.consumers.delete(stream, durable);
    await ensureConsumer(file.nc, { stream, durable, filterSubjects: [`${root}.>`], ...consumer });
    file.started(await projecting());
    await eventually("all redelivered and acked", async () => {
      const info = await jsm.consumers.info(stream, durable);
      return info.delivered.stream_seq === 60 && info.num_ack_pending === 0 ? true : undefined;
    });
    expect(await counts()).toEqual(liveCounts);
  });
});
