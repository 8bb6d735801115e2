import pg from "pg";
import { describe, expect, it } from "vitest";
import { appendToStream } from "../src/streams/appendToStream.ts";
import { initialCheckpoint } from "../src/streams/checkpoint.ts";
import { ConcurrencyError } from "../src/errors.ts";
import { readBatch } from "../src/streams/readBatch.ts";
import { createSchema, eventually, fileSchema, schemaName } from "./support.ts";

const file = fileSchema("gap");
const { schema } = file;

const options = { maxEventBytes: 1 << 20 };
const event = (name: string) => [{ type: "TagCreated", data: { name } }];

async function connection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: file.env.url });
  await client.connect();
  return client;
}

describe("reading the global log", () => {
  it("does not lose an earlier transaction that commits after a later one, as a position cursor does", async () => {
    const early = await connection();
    const late = await connection();
    const reader = await connection();
    try {
      // The early transaction takes the lower position, then stays open.
      await early.query("BEGIN");
      const [a] = await appendToStream(early, schema, "tag-a", 0, event("a"), options);
      // The late transaction takes a higher position and commits first.
      await late.query("BEGIN");
      const [b] = await appendToStream(late, schema, "tag-b", 0, event("b"), options);
      await late.query("COMMIT");
      expect(a!.globalPosition).toBeLessThan(b!.globalPosition);

      // A position-only cursor sees b, and moves past a's position while a is invisible.
      const positionCursor = async (last: bigint) =>
        (
          await reader.query<{ global_position: string; event_id: string }>(
            `SELECT global_position::text, event_id FROM "${schema}".events WHERE global_position > $1 ORDER BY global_position`,
            [last.toString()],
          )
        ).rows;
      const firstRead = await positionCursor(0n);
      expect(firstRead.map((r) => r.event_id)).toEqual([b!.eventId]);
      const last = BigInt(firstRead.at(-1)!.global_position);

      // Ours holds back: b's transaction is not below the snapshot's xmin while a's is open.
      expect(await readBatch(reader, schema, initialCheckpoint, 100)).toEqual([]);

      await early.query("COMMIT");

      // The position cursor never sees a: it is behind the cursor for good.
      expect(await positionCursor(last)).toEqual([]);
      // Ours gets both, in commit order: a's transaction began first, so it sorts first.
      // (Polled: other test files' open transactions in this cluster also hold xmin back.)
      const ours = await eventually("both events", async () => {
        const batch = await readBatch(reader, schema, initialCheckpoint, 100);
        return batch.length === 2 ? batch : undefined;
      });
      expect(ours.map((e) => e.eventId)).toEqual([a!.eventId, b!.eventId]);
      expect(ours.map((e) => e.transactionId)).toEqual([a!.transactionId, b!.transactionId]);
    } finally {
      await Promise.all([early.end(), late.end(), reader.end()]);
    }
  });

  it("refuses to append on top of a younger transaction's event, which would read out of stream order", async () => {
    const s = schemaName("order");
    await createSchema(file.env.pool, s);
    const older = await connection();
    const younger = await connection();
    try {
      // The older transaction takes its id by writing elsewhere first.
      await older.query("BEGIN");
      await appendToStream(older, s, "tag-elsewhere", 0, event("x"), options);
      // A younger transaction starts the stream and commits.
      await younger.query("BEGIN");
      const [v1] = await appendToStream(younger, s, "tag-s", 0, event("v1"), options);
      await younger.query("COMMIT");
      // Appending v2 now would sort v2 (older id) before v1 in (transaction_id, position) order.
      await expect(appendToStream(older, s, "tag-s", "any", event("v2"), options)).rejects.toThrow(
        ConcurrencyError,
      );
      await older.query("ROLLBACK");
      // The retry runs under a new id, younger than v1's, and reads back in version order.
      await older.query("BEGIN");
      const [v2] = await appendToStream(older, s, "tag-s", 1, event("v2"), options);
      await older.query("COMMIT");
      expect(v2!.transactionId).toBeGreaterThan(v1!.transactionId);
      const read = await eventually("both versions", async () => {
        const batch = await readBatch(older, s, initialCheckpoint, 100);
        return batch.length === 2 ? batch : undefined;
      });
      expect(read.map((e) => e.streamVersion)).toEqual([1, 2]);
    } finally {
      await Promise.all([older.end(), younger.end()]);
    }
  });

  it("orders positions as numbers, across a change in digit count", async () => {
    const s = schemaName("digits");
    await createSchema(file.env.pool, s);
    const client = await connection();
    try {
      await client.query("BEGIN");
      const stored = await appendToStream(
        client,
        s,
        "tag-d",
        0,
        Array.from({ length: 15 }, (_, n) => ({ type: "T", data: { n } })),
        options,
      );
      await client.query("COMMIT");
      expect(stored.at(-1)!.globalPosition).toBeGreaterThanOrEqual(10n);
      const read = await eventually("the batch", async () => {
        const batch = await readBatch(client, s, initialCheckpoint, 100);
        return batch.length === 15 ? batch : undefined;
      });
      expect(read.map((e) => e.streamVersion)).toEqual(stored.map((e) => e.streamVersion));
    } finally {
      await client.end();
    }
  });

  it("pages by (transaction_id, global_position) and skips rolled-back events", async () => {
    const s = schemaName("page");
    await createSchema(file.env.pool, s);
    const client = await connection();
    try {
      await client.query("BEGIN");
      await appendToStream(
        client,
        s,
        "tag-x",
        0,
        [1, 2, 3].map((n) => ({ type: "T", data: { n } })),
        options,
      );
      await client.query("ROLLBACK");
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        await client.query("BEGIN");
        const stored = await appendToStream(
          client,
          s,
          `tag-${i}`,
          0,
          [1, 2].map((n) => ({ type: "T", data: { n } })),
          options,
        );
        ids.push(...stored.map((e) => e.eventId));
        await client.query("COMMIT");
      }
      const seen: string[] = [];
      let after = initialCheckpoint;
      await eventually("all pages", async () => {
        const page = await readBatch(client, s, after, 3);
        seen.push(...page.map((e) => e.eventId));
        const tail = page.at(-1);
        if (tail)
          after = { transactionId: tail.transactionId, globalPosition: tail.globalPosition };
        return seen.length >= ids.length ? true : undefined;
      });
      expect(seen).toEqual(ids);
    } finally {
      await client.end();
    }
  });
});
