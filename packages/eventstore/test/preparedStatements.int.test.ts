import type { PoolClient } from "pg";
import { describe, expect, it } from "vitest";
import { tracedQuery } from "../src/index.ts";
import { preparedName } from "../src/schema/tracedQuery.ts";
import { fileSchema } from "./support.ts";

// tracedQuery prepares a statement with parameters once per connection: Postgres then skips
// parsing and planning it on every later run (bench/README.md, S1).

const file = fileSchema("prep", "CREATE TABLE things (id int PRIMARY KEY, label text NOT NULL)");
const { schema } = file;

/** Runs `fn` on one connection of the file's pool, with the statements it prepared after. */
async function onOneConnection(
  fn: (client: PoolClient) => Promise<void>,
): Promise<{ name: string; statement: string }[]> {
  const client = await file.env.pool.connect();
  try {
    await fn(client);
    const { rows } = await client.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time",
    );
    return rows;
  } finally {
    client.release(true);
  }
}

describe("tracedQuery's prepared statements", () => {
  it("prepares a lookup once per connection, and each run answers with its own values", async () => {
    const insert = `INSERT INTO ${schema}.things (id, label) VALUES ($1, $2)`;
    const lookup = `SELECT id, label FROM ${schema}.things WHERE id = $1`;
    const prepared = await onOneConnection(async (client) => {
      for (const id of [1, 2, 3]) await tracedQuery(client, "insert", insert, [id, `t${id}`]);
      for (const id of [3, 1, 2, 3, 9]) {
        const { rows } = await tracedQuery(client, "lookup", lookup, [id]);
        expect(rows).toEqual(id === 9 ? [] : [{ id, label: `t${id}` }]);
      }
    });
    expect(prepared).toEqual([
      { name: preparedName(insert), statement: insert },
      { name: preparedName(lookup), statement: lookup },
    ]);
  });

  it("prepares nothing without parameters, nor a * projection", async () => {
    const star = `SELECT * FROM ${schema}.things WHERE id = $1`;
    const prepared = await onOneConnection(async (client) => {
      await tracedQuery(client, "count", `SELECT count(*) FROM ${schema}.things`);
      expect((await tracedQuery(client, "star", star, [1])).rows).toEqual([{ id: 1, label: "t1" }]);
    });
    expect(prepared).toEqual([]);
  });

  it("a migration that adds a column leaves prepared statements and * projections answering", async () => {
    const lookup = `SELECT id, label FROM ${schema}.things WHERE id = $1`;
    const star = `SELECT * FROM ${schema}.things WHERE id = $1`;
    await onOneConnection(async (client) => {
      expect((await tracedQuery(client, "lookup", lookup, [2])).rows).toEqual([
        { id: 2, label: "t2" },
      ]);
      await file.env.pool.query(
        `ALTER TABLE ${schema}.things ADD COLUMN weight int NOT NULL DEFAULT 7`,
      );
      expect((await tracedQuery(client, "lookup", lookup, [2])).rows).toEqual([
        { id: 2, label: "t2" },
      ]);
      expect((await tracedQuery(client, "star", star, [2])).rows).toEqual([
        { id: 2, label: "t2", weight: 7 },
      ]);
    });
  });

  it("a statement that fails to prepare is prepared again on its next run", async () => {
    const late = `SELECT id FROM ${schema}.later_things WHERE id = $1`;
    const prepared = await onOneConnection(async (client) => {
      await expect(tracedQuery(client, "late", late, [1])).rejects.toThrow(/does not exist/);
      await file.env.pool.query(`CREATE TABLE ${schema}.later_things (id int PRIMARY KEY)`);
      await file.env.pool.query(`INSERT INTO ${schema}.later_things VALUES (1)`);
      expect((await tracedQuery(client, "late", late, [1])).rows).toEqual([{ id: 1 }]);
    });
    expect(prepared).toEqual([{ name: preparedName(late), statement: late }]);
  });
});
