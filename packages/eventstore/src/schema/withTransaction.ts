import type { Pool, PoolClient, QueryResult } from "pg";
import { DomainError, checkout, isDependencyUnavailable } from "@argus/platform";
import { CommitOutcomeUnknownError, ConnectionLostError } from "../errors.ts";
import { tracedQuery } from "./tracedQuery.ts";

/** What a transaction does in BEGIN's round trip. */
export interface Opening {
  /**
   * SQL without parameters (its values written in as literals by the caller, from values it
   * checked), sent with BEGIN, one statement after another, each with a snapshot of its own as
   * any statement of the transaction; fn gets their results. A command whose first statements
   * are known before it starts (a row lock, a lookup under it) so makes one round trip of
   * BEGIN's and its own.
   */
  sql?: string;
  /**
   * Work of the caller's own (parsing its input, say) done while BEGIN's round trip is in
   * flight, so that the two overlap instead of adding up. What it throws is the transaction's
   * error (rolled back), whatever BEGIN answered.
   */
  meanwhile?: () => void;
  /**
   * fn starts as soon as `sql` is sent, without waiting for its answer: a command that
   * assumes what those statements will read (a cache of them) sends its own statements right
   * behind them, and checks their results (`opened`) before it lets COMMIT go. BEGIN's round
   * trip then overlaps the command's statements instead of preceding them. When the opening
   * fails, its error is the transaction's, whatever fn's statements said about the aborted
   * transaction behind it.
   */
  ahead?: boolean;
}

/**
 * Sends COMMIT at once, behind the statements already sent and before they answer (the
 * connection is pipelined): the transaction commits in the round trip of its last statements.
 * Only for a caller that sends nothing more and checks nothing more on their answers: what
 * could refuse the transaction must refuse it in SQL (`refuse`), so that COMMIT finds it
 * aborted and rolls it back.
 */
export type CommitNow = () => void;

/**
 * BEGIN, fn, COMMIT on one pooled connection; ROLLBACK when fn throws. When the database is
 * lost, the error says on which side of COMMIT: before it was sent, a ConnectionLostError (the
 * transaction did not happen; safe to run again); while it was in flight, a
 * CommitOutcomeUnknownError (it may have committed). fn may send COMMIT itself (`CommitNow`).
 */
export async function withTransaction<T>(
  pool: Pool,
  fn: (
    client: PoolClient,
    opened: Promise<readonly QueryResult[]>,
    commitNow: CommitNow,
  ) => Promise<T>,
  opening: Opening = {},
): Promise<T> {
  let client: PoolClient;
  try {
    // Pipelined: a command's projection goes out behind its append (handleCommand.ts).
    client = await checkout(pool, undefined, { pipelined: true });
  } catch (err) {
    throw lost(err, false);
  }
  let committing: Promise<QueryResult> | undefined;
  let broken: Error | undefined;
  const commitNow = () => {
    committing ??= tracedQuery(client, "commit", "COMMIT");
  };
  try {
    const { sql, meanwhile, ahead = false } = opening;
    // The query is on its way once made: the driver writes it at once to an idle connection.
    const beginning = tracedQuery(client, "begin", sql ? `BEGIN; ${sql}` : "BEGIN");
    // Several statements answer with a result each (pg's types say one).
    const opened = beginning.then((begun) =>
      sql ? (begun as unknown as QueryResult[]).slice(1) : [],
    );
    // Looked at below on every path; ahead, fn may still be running when it fails.
    opened.catch(() => {});
    // The opening's failure, once it answered; undefined when it succeeded.
    const openingFailure = () =>
      opened.then(
        () => undefined,
        (err: unknown) => ({ err }),
      );
    let refused: { err: unknown } | undefined;
    try {
      meanwhile?.();
    } catch (err) {
      refused = { err };
    }
    try {
      if (refused) {
        await openingFailure();
        throw refused.err;
      }
      if (!ahead) await opened;
      let result: T;
      try {
        result = await fn(client, opened, commitNow);
      } catch (err) {
        // Ahead of the opening, fn's statements failed on the transaction it aborted.
        const first = ahead ? await openingFailure() : undefined;
        // A COMMIT already sent ends the transaction either way: it found it aborted by the
        // statement that failed (ROLLBACK), or fn failed on something it should have refused
        // in SQL, and the transaction committed all the same.
        if (committing && (await committing).command === "COMMIT")
          throw new Error("committed although the command failed after sending COMMIT", {
            cause: err,
          });
        throw first ? first.err : err;
      }
      // fn need not have looked: a failed opening aborted what it sent.
      const failed = ahead ? await openingFailure() : undefined;
      if (failed) throw failed.err;
      commitNow();
      const commit = await (committing as Promise<QueryResult>);
      // COMMIT of a transaction that already failed reports ROLLBACK instead of an error.
      if (commit.command === "ROLLBACK")
        throw new Error("transaction rolled back: a failed statement was swallowed");
      return result;
    } catch (err) {
      // BEGIN's round trip included: a statement of `sql` that failed left the transaction
      // open (aborted), and the connection must not go back to the pool so.
      if (!committing)
        await client.query("ROLLBACK").catch((rollbackErr: Error) => (broken = rollbackErr));
      throw refused ? refused.err : err;
    }
  } catch (err) {
    throw lost(err, committing !== undefined);
  } finally {
    // A connection that could not even roll back (or broke) is destroyed, not reused.
    client.release(broken);
  }
}

function lost(err: unknown, committing: boolean): unknown {
  if (err instanceof DomainError || !isDependencyUnavailable(err)) return err;
  return committing ? new CommitOutcomeUnknownError(err) : new ConnectionLostError(err);
}
