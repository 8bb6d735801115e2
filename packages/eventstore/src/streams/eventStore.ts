import { SpanStatusCode } from "@opentelemetry/api";
import type { Pool, PoolClient, QueryResult } from "pg";
import { appendToStream, type ExpectedVersion } from "./appendToStream.ts";
import { backoffDelay, sleep, type BackoffOptions } from "../backoff.ts";
import { ConcurrencyError, ConnectionLostError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { readStream } from "./readStream.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { loadStream, saveSnapshot, type StreamRead } from "./snapshots.ts";
import { tracer } from "../schema/tracedQuery.ts";
import type { NewEvent, StoredEvent } from "../types.ts";
import type { ProjectionStatement } from "../commands/projectionStatement.ts";
import { withTransaction, type CommitNow, type Opening } from "../schema/withTransaction.ts";

export interface EventStoreOptions {
  pool: Pool;
  schema: string;
  /** Called after every COMMIT that appended events: the relay's in-process wake. */
  onCommit?: (events: readonly StoredEvent[]) => void;
  /**
   * Re-runs of `fn` after a concurrency conflict before ConcurrencyError; default 8: with 20
   * writers on one stream, 3 left most of them a 409 (a delete among updates starved), while
   * 8 jittered waits of at most 200 ms stay well inside a request's deadline, which also
   * stops them (no attempt starts once the caller is gone).
   */
  retries?: number;
  retryBackoff?: BackoffOptions;
  /**
   * Re-runs of `fn` whose connection was lost before COMMIT was sent (ConnectionLostError:
   * nothing of it happened); default 3, backing off from 100 ms to 1 s: enough for a pool to
   * replace the connections a database restart broke, short enough that a database that is
   * down answers 503 well inside the caller's deadline.
   */
  connectionRetries?: number;
  connectionBackoff?: BackoffOptions;
  /** Default: NATS's default max_payload (1 MiB). */
  maxEventBytes?: number;
  logger?: Logger;
}

export interface EventStoreTransaction {
  /** The transaction's connection, for the caller's inline projection writes. */
  readonly client: PoolClient;
  /**
   * The results of the `opening` statements, sent with BEGIN (`withTransaction`): answered
   * before the transaction's function starts, unless the opening goes `ahead` of them.
   */
  readonly opened: Promise<readonly QueryResult[]>;
  /** COMMIT, sent now, behind the statements already sent (`CommitNow`). */
  readonly commitNow: CommitNow;
  /**
   * appendToStream's: what it refuses before sending, it throws at once; with `projection`,
   * the one event's projection in the same statement.
   */
  append(
    streamId: string,
    expectedVersion: ExpectedVersion,
    events: readonly NewEvent[],
    projection?: ProjectionStatement,
  ): Promise<StoredEvent[]>;
  /** The stream from its snapshot under `snapshotTag` when there is one (snapshots.ts). */
  loadStream(streamId: string, snapshotTag?: string): Promise<StreamRead>;
  saveSnapshot(
    streamId: string,
    snapshot: { tag: string; version: number; state: unknown },
  ): Promise<void>;
}

export interface EventStore {
  /** The schema it keeps its tables in (the service's own). */
  readonly schema: string;
  /**
   * Runs `fn` in one Postgres transaction. On a stream version conflict the whole `fn` runs
   * again (so it must load state inside), at most `retries` times, then ConcurrencyError; on a
   * connection lost before COMMIT was sent, at most `connectionRetries` times, then
   * ConnectionLostError. A connection lost during COMMIT is CommitOutcomeUnknownError, never
   * run again.
   */
  transaction<T>(fn: (tx: EventStoreTransaction) => Promise<T>, opening?: Opening): Promise<T>;
  readStream(streamId: string): Promise<StoredEvent[]>;
}

export function createEventStore(options: EventStoreOptions): EventStore {
  const { pool, schema } = options;
  quoteSchema(schema);
  const retries = options.retries ?? 8;
  const retryBackoff = options.retryBackoff ?? { baseMs: 5, maxMs: 200 };
  const connectionRetries = options.connectionRetries ?? 3;
  const connectionBackoff = options.connectionBackoff ?? { baseMs: 100, maxMs: 1000 };
  const appendOptions = { maxEventBytes: options.maxEventBytes ?? 1024 * 1024 };

  async function attempt<T>(
    fn: (tx: EventStoreTransaction) => Promise<T>,
    opening: Opening | undefined,
  ): Promise<T> {
    const appended: StoredEvent[] = [];
    const result = await withTransaction(
      pool,
      (client, opened, commitNow) =>
        fn({
          client,
          opened,
          commitNow,
          loadStream: (streamId, tag) => loadStream(client, schema, streamId, tag),
          saveSnapshot: (streamId, snapshot) => saveSnapshot(client, schema, streamId, snapshot),
          // Not async: what appendToStream refuses before sending is thrown at once.
          append: (streamId, expectedVersion, events, projection) =>
            appendToStream(
              client,
              schema,
              streamId,
              expectedVersion,
              events,
              appendOptions,
              projection,
            ).then((stored) => {
              appended.push(...stored);
              return stored;
            }),
        }),
      opening,
    );
    if (appended.length > 0 && options.onCommit) {
      try {
        options.onCommit(appended);
      } catch (err) {
        // The transaction is committed; a failing hook must not turn it into an error.
        options.logger?.warn("onCommit hook failed", { err });
      }
    }
    return result;
  }

  return {
    schema,
    transaction: (fn, opening) =>
      tracer.startActiveSpan("eventstore.transaction", async (span) => {
        try {
          for (let retry = 0, reconnect = 0; ;) {
            try {
              return await attempt(fn, opening);
            } catch (caught) {
              if (caught instanceof ConnectionLostError && reconnect < connectionRetries) {
                reconnect++;
                span.addEvent("connection lost before commit", { "argus.retry": reconnect });
                options.logger?.warn("database connection lost before commit; running again", {
                  err: caught.message,
                  retry: reconnect,
                });
                await sleep(Math.max(10, backoffDelay(reconnect, connectionBackoff)));
                continue;
              }
              const err = asRetryable(caught);
              if (!err || retry >= retries) throw err ?? caught;
              retry++;
              span.addEvent("concurrency conflict", {
                "argus.stream_id": err.streamId,
                "argus.retry": retry,
              });
              await sleep(backoffDelay(retry, retryBackoff));
            }
          }
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      }),
    readStream: (streamId) => readStream(pool, schema, streamId),
  };
}

/**
 * A conflict another attempt may not meet: a stream moved on, or Postgres chose this
 * transaction as a deadlock's victim (40P01) or a serialization failure (40001). Commands take
 * their locks in one order, so a deadlock is a bug; should one happen all the same, the caller
 * gets a retry and then a 409, never a 500.
 */
function asRetryable(err: unknown): ConcurrencyError | undefined {
  if (err instanceof ConcurrencyError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "40P01" || code === "40001")
    return new ConcurrencyError("(transaction)", "any", { cause: err });
  return undefined;
}
