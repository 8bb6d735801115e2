import pg from "pg";
import { createTestDatabase, testInfra, uniqueName } from "@argus/testkit";

export interface TestEnv {
  pool: pg.Pool;
  close(): Promise<void>;
}

/** A database of the test file's own, and a pool on it. */
export async function testEnv(): Promise<TestEnv> {
  const db = await createTestDatabase(testInfra());
  const pool = new pg.Pool({ connectionString: db.url, max: 20 });
  pool.on("error", () => {});
  return {
    pool,
    async close() {
      await pool.end();
      await db.drop();
    },
  };
}

/** A schema name no other test uses. */
export const schemaName = (prefix: string): string =>
  uniqueName(prefix).toLowerCase().replace(/-/g, "_");
