import type { Pool, PoolClient, QueryResult } from "pg";
import { DomainError, checkout, isDependencyUnavailable } from "@argus/platform";
import { CommitOutcomeUnknownError, ConnectionLostError } from "../errors.ts";
import { tracedQuery } from "./tracedQuery.ts";

/**
 * BEGIN, fn, COMMIT on one pooled connection; ROLLBACK when fn throws. When the database is
 * lost, the error says on which side of COMMIT: before it was sent, a ConnectionLostError (the
 * transaction did not happen; safe to run again); while it was in flight, a
 * CommitOutcomeUnknownError (it may have committed).
 *
 * `opening`, SQL without parameters (its values written in as literals by the caller, from
 * values it checked), goes in BEGIN's own round trip, one statement after another, each with
 * a snapshot of its own as any statement of the transaction; fn gets their results. A command
 * whose first statements are known before it starts (a row lock, a lookup under it) so makes
 * one round trip of BEGIN's and its own.
 */
export async function withTransaction<T>(
  pool: Pool,
  fn: (client: PoolClient, opened: readonly QueryResult[]) => Promise<T>,
  opening?: string,
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
    const begun = await tracedQuery(client, "begin", opening ? `BEGIN; ${opening}` : "BEGIN");
    // Several statements answer with a result each (pg's types say one).
    const opened = opening ? (begun as unknown as QueryResult[]).slice(1) : [];
    try {
      const result = await fn(client, opened);
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
