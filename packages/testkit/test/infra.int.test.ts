import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { createTestDatabase, testInfra, uniqueName } from "../src/index.ts";

async function withClient<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(name: string): Promise<boolean> {
  const { rows } = await withClient(testInfra().databaseUrl, (c) =>
    c.query("select 1 from pg_database where datname = $1", [name]),
  );
  return rows.length === 1;
}

describe("postgres", () => {
  it("answers queries on the admin connection, which may create databases", async () => {
    const name = uniqueName("argus_t_admin").toLowerCase().replaceAll("-", "_");
    await withClient(testInfra().databaseUrl, async (c) => {
      const { rows } = await c.query<{ db: string }>("select current_database() as db");
      expect(rows[0]?.db).toBe("postgres");
      await c.query(`create database ${name}`);
      await c.query(`drop database ${name}`);
    });
  });

  it("gives each test database its own tables and drops it with its open connections", async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.url).not.toBe(b.url);
    await withClient(a.url, (c) => c.query("create table only_in_a (id int)"));
    const inB = await withClient(b.url, (c) =>
      c.query("select 1 from information_schema.tables where table_name = 'only_in_a'"),
    );
    expect(inB.rows).toHaveLength(0);

    const lingering = new Client({ connectionString: a.url });
    lingering.on("error", () => {});
    await lingering.connect();
    const nameA = new URL(a.url).pathname.slice(1);
    expect(nameA).toMatch(/^argus_t_[a-z0-9]+$/);
    await a.drop();
    expect(await databaseExists(nameA)).toBe(false);
    await a.drop();
    await lingering.end().catch(() => {});
    await b.drop();
  });
});

describe("nats jetstream", () => {
  it("drops a re-publish with the same msgID", async () => {
    const nc = await connect({ servers: testInfra().natsUrl });
    const stream = uniqueName("TESTKIT");
    const subject = `${stream}.events`;
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
      const js = jetstream(nc);
      const first = await js.publish(subject, "hello", { msgID: "event-1" });
      const again = await js.publish(subject, "hello", { msgID: "event-1" });
      expect(first.duplicate).toBe(false);
      expect(again.duplicate).toBe(true);
      expect(again.seq).toBe(first.seq);
      expect((await jsm.streams.info(stream)).state.messages).toBe(1);
      await jsm.streams.delete(stream);
    } finally {
      await nc.close();
    }
  });
});
