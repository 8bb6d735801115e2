import type { Pool, PoolClient } from "pg";
import { DomainError, checkout, isDependencyUnavailable } from "@argus/platform";
import { CommitOutcomeUnknownError, ConnectionLostError } from "../errors.ts";
import { tracedQuery } from "./tracedQuery.ts";

/**
 * BEGIN, fn, COMMIT on one pooled connection; ROLLBACK when fn throws. When the database is
 * lost, the error says on which side of COMMIT: before it was sent, a ConnectionLostError (the
 * transaction did not happen; safe to run again); while it was in flight, a
 * CommitOutcomeUnknownError (it may have committed).
 */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await checkout(pool);
  } catch (err) {
    throw lost(err, false);
  }
  let committing = false;
  let broken: Error | undefined;
  try {
    await tracedQuery(client, "begin", "BEGIN");
    try {
      const result = await fn(client);
      committing = true;
      const commit = await tracedQuery(client, "commit", "COMMIT");
      // COMMIT of a transaction that already failed reports ROLLBACK instead of an error.
      if (commit.command === "ROLLBACK")
        throw new Error("transaction rolled back: a failed statement was swallowed");
      return result;
    } catch (err) {
      if (!committing)
        await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    }
  } catch (err) {
    throw lost(err, committing);
  } finally {
    // A connection that could not even roll back (or broke) is destroyed, not reused.
    client.release(broken);
  }
}

function lost(err: unknown, committing: boolean): unknown {
  if (err instanceof DomainError || !isDependencyUnavailable(err)) return err;
  return committing ? new CommitOutcomeUnknownError(err) : new ConnectionLostError(err);
}
