import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "./tracedQuery.ts";

/** BEGIN, fn, COMMIT on one pooled connection; ROLLBACK when fn throws. */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await tracedQuery(client, "begin", "BEGIN");
    try {
      const result = await fn(client);
      const commit = await tracedQuery(client, "commit", "COMMIT");
      // COMMIT of a transaction that already failed reports ROLLBACK instead of an error.
      if (commit.command === "ROLLBACK")
        throw new Error("transaction rolled back: a failed statement was swallowed");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    }
  } finally {
    // A connection that could not even roll back is destroyed, not reused.
    client.release(broken);
  }
}
