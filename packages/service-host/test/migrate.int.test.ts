import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MigrationError, migrate } from "../src/migrations/migrate.ts";
import { schemaName, testEnv, type TestEnv } from "./support.ts";

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(() => env.close());

const tagsMigration = {
  id: "0001_tags",
  // Unqualified: migrations run with search_path set to their schema.
  sql: "CREATE TABLE tags (id uuid PRIMARY KEY, name text NOT NULL); CREATE UNIQUE INDEX tags_name ON tags (lower(name));",
};

describe("migrate", () => {
  it("creates the store's tables, then the service's, in the schema", async () => {
    const schema = schemaName("mig");
    const { applied } = await migrate(env.pool, { schema, migrations: [tagsMigration] });
    expect(applied).toEqual([
      "eventstore/0001_events",
      "eventstore/0002_relay_checkpoints",
      "eventstore/0003_consumers",
      "eventstore/0004_snapshots",
      "eventstore/0005_applied_requests",
      "eventstore/0006_event_compression",
      "eventstore/0007_refuse",
      "0001_tags",
    ]);
    const { rows } = await env.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      "applied_requests",
      "consumer_checkpoints",
      "dead_letters",
      "events",
      "processed_events",
      "relay_checkpoints",
      "schema_migrations",
      "snapshots",
      "tags",
    ]);
  });

  it("compresses events' data with lz4, which this Postgres has", async () => {
    const schema = schemaName("mig");
    await migrate(env.pool, { schema, migrations: [] });
    const { rows } = await env.pool.query<{ attcompression: string }>(
      `SELECT attcompression FROM pg_attribute
        WHERE attrelid = format('%I.events', $1::text)::regclass AND attname = 'data'`,
      [schema],
    );
    expect(rows).toEqual([{ attcompression: "l" }]);
  });

  it("gives events exactly the columns of ARCHITECTURE §5", async () => {
    const schema = schemaName("mig");
    await migrate(env.pool, { schema, migrations: [] });
    const { rows } = await env.pool.query<{
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
      is_identity: string;
    }>(
      `SELECT column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`,
      [schema],
    );
    expect(rows.map((r) => [r.column_name, r.data_type, r.is_nullable])).toEqual([
      ["global_position", "bigint", "NO"],
      ["transaction_id", "xid8", "NO"],
      ["stream_id", "text", "NO"],
      ["stream_version", "integer", "NO"],
      ["event_id", "uuid", "NO"],
      ["event_type", "text", "NO"],
      ["data", "jsonb", "NO"],
      ["metadata", "jsonb", "NO"],
      ["recorded_at", "timestamp with time zone", "NO"],
    ]);
    expect(rows[0]?.is_identity).toBe("YES");
    expect(rows[1]?.column_default).toBe("pg_current_xact_id()");
    const constraints = await env.pool.query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = $1 AND t.relname = 'events' AND c.contype IN ('u', 'p')
       ORDER BY 1`,
      [schema],
    );
    expect(constraints.rows.map((r) => r.def)).toEqual([
      "PRIMARY KEY (global_position)",
      "UNIQUE (event_id)",
      "UNIQUE (stream_id, stream_version)",
    ]);
  });

  it("applies each migration once across restarts", async () => {
    const schema = schemaName("mig");
    await migrate(env.pool, { schema, migrations: [tagsMigration] });
    const second = await migrate(env.pool, {
      schema,
      migrations: [
        tagsMigration,
        { id: "0002_more", sql: "ALTER TABLE tags ADD COLUMN color text" },
      ],
    });
    expect(second.applied).toEqual(["0002_more"]);
    expect((await migrate(env.pool, { schema, migrations: [tagsMigration] })).applied).toEqual([]);
  });

  it("lets concurrent starts wait for each other instead of racing", async () => {
    const schema = schemaName("mig");
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => migrate(env.pool, { schema, migrations: [tagsMigration] })),
    );
    expect(runs.flatMap((r) => r.applied).sort()).toEqual(
      [
        "0001_tags",
        "eventstore/0001_events",
        "eventstore/0002_relay_checkpoints",
        "eventstore/0003_consumers",
        "eventstore/0004_snapshots",
        "eventstore/0005_applied_requests",
        "eventstore/0006_event_compression",
        "eventstore/0007_refuse",
      ].sort(),
    );
    const { rows } = await env.pool.query(`SELECT id FROM "${schema}".schema_migrations`);
    expect(rows).toHaveLength(8);
  });

  it("refuses a migration whose text changed after it was applied", async () => {
    const schema = schemaName("mig");
    await migrate(env.pool, { schema, migrations: [tagsMigration] });
    await expect(
      migrate(env.pool, {
        schema,
        migrations: [{ ...tagsMigration, sql: tagsMigration.sql + " -- edited" }],
      }),
    ).rejects.toThrow(MigrationError);
  });

  it("rolls a failing migration back whole and reports it", async () => {
    const schema = schemaName("mig");
    const broken = {
      id: "0001_broken",
      sql: "CREATE TABLE half (id int); SELECT * FROM missing_table;",
    };
    await expect(migrate(env.pool, { schema, migrations: [broken] })).rejects.toThrow(
      /0001_broken failed/,
    );
    const { rows } = await env.pool.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'half'",
      [schema],
    );
    expect(rows).toHaveLength(0);
    // The lock was released: the next start works.
    await expect(migrate(env.pool, { schema, migrations: [] })).resolves.toEqual({ applied: [] });
  });

  it("rejects duplicate and reserved ids before touching the database", async () => {
    const schema = schemaName("mig");
    await expect(
      migrate(env.pool, { schema, migrations: [tagsMigration, tagsMigration] }),
    ).rejects.toThrow(/twice/);
    await expect(
      migrate(env.pool, { schema, migrations: [{ id: "eventstore/x", sql: "" }] }),
    ).rejects.toThrow(/reserved/);
  });
});
