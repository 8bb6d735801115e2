import { randomBytes } from "node:crypto";
import { connectClient } from "@argus/platform";
import type { Infra } from "./infra.ts";
import { testInfra } from "./testInfra.ts";

export interface TestDatabase {
  url: string;
  /** Terminates every connection to it (end your pools first) and drops it. Idempotent. */
  drop(): Promise<void>;
}

/** A fresh, empty database of its own for one test file: argus_t_<random>. */
export async function createTestDatabase(infra: Infra = testInfra()): Promise<TestDatabase> {
  // Only [a-z0-9_], so it is safe to put into SQL unquoted.
  const name = `argus_t_${randomBytes(8).toString("hex")}`;
  await asAdmin(infra.databaseUrl, `create database ${name}`);
  const url = new URL(infra.databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(infra.databaseUrl, `drop database if exists ${name} with (force)`),
  };
}

async function asAdmin(adminUrl: string, sql: string): Promise<void> {
  const client = await connectClient({ connectionString: adminUrl });
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
