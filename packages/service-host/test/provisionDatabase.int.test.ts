import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_REGISTRY } from "@argus/platform";
import { createTestDatabase, testInfra, uniqueName, type TestDatabase } from "@argus/testkit";
import { migrate } from "../src/migrations/migrate.ts";
import {
  databaseRoleNames,
  dropDatabaseRoles,
  provisionDatabase,
  urlAs,
  type DatabaseRoles,
} from "../src/provisioning/provisionDatabase.ts";

let db: TestDatabase;
let roles: DatabaseRoles;
beforeAll(async () => {
  db = await createTestDatabase(testInfra());
  const names = databaseRoleNames(uniqueName("p").toLowerCase().replace(/-/g, "_"));
  const pw = () => crypto.randomUUID();
  roles = {
    services: Object.fromEntries(
      Object.entries(names.services).map(([s, role]) => [s, { role, password: pw() }]),
    ),
    migrator: { role: names.migrator, password: pw() },
  };
  await provisionDatabase(db.url, roles);
});
afterAll(async () => {
  await db?.drop();
  if (roles) await dropDatabaseRoles(testInfra().databaseUrl, roles);
});

async function as<T>(role: { role: string; password: string }, fn: (c: pg.Client) => Promise<T>) {
  const c = new pg.Client({ connectionString: urlAs(db.url, role) });
  c.on("error", () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => "allowed",
    (e: Error) => e.message,
  );

describe("a database role per service", () => {
  it("each service migrates its own schema, and reads no other", async () => {
    for (const d of SERVICE_REGISTRY) {
      const role = roles.services[d.name]!;
      const pool = new pg.Pool({ connectionString: urlAs(db.url, role), max: 1 });
      await migrate(pool, {
        schema: d.schema,
        migrations: [{ id: "0001_t", sql: "create table secrets (x text)" }],
      });
      await pool.end();
    }
    for (const d of SERVICE_REGISTRY) {
      const role = roles.services[d.name]!;
      for (const other of SERVICE_REGISTRY.filter((o) => o.name !== d.name)) {
        expect(
          await as(role, (c) => refusal(c.query(`select * from ${other.schema}.events`))),
        ).toMatch(/permission denied/);
        expect(
          await as(role, (c) =>
            refusal(c.query(`insert into ${other.schema}.secrets values ('x')`)),
          ),
        ).toMatch(/permission denied/);
      }
    }
  });

  it("no service role can create roles, databases or schemas", async () => {
    const role = roles.services[SERVICE_REGISTRY[0]!.name]!;
    expect(await as(role, (c) => refusal(c.query("create role intruder")))).toMatch(
      /permission denied/,
    );
    expect(await as(role, (c) => refusal(c.query("create database intruder")))).toMatch(
      /permission denied/,
    );
    expect(await as(role, (c) => refusal(c.query("create schema intruder")))).toMatch(
      /permission denied/,
    );
  });

  it("refuses a wrong password", async () => {
    const role = roles.services[SERVICE_REGISTRY[0]!.name]!;
    expect(await refusal(as({ ...role, password: "wrong" }, async () => undefined))).toMatch(
      /password authentication failed/,
    );
  });

  it("the migration role acts as each service's owner, and provisioning again changes nothing", async () => {
    await provisionDatabase(db.url, roles);
    const d = SERVICE_REGISTRY[0]!;
    const owner = await as(roles.migrator, async (c) => {
      await c.query(`set role ${roles.services[d.name]!.role}`);
      await c.query(`create table ${d.schema}.by_migrator (x int)`);
      return (
        await c.query<{ owner: string }>(
          "select tableowner as owner from pg_tables where schemaname = $1 and tablename = 'by_migrator'",
          [d.schema],
        )
      ).rows[0]!.owner;
    });
    expect(owner).toBe(roles.services[d.name]!.role);
  });
});
