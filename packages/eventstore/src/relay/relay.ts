import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Pool, PoolClient } from "pg";
import { checkout } from "@argus/platform";
import { backoffDelay } from "../backoff.ts";
import { checkpointOf, compareCheckpoints } from "../streams/checkpoint.ts";
import type { Logger } from "../logger.ts";
import { publishEvent } from "./publishEvent.ts";
import { readBatchDataText } from "../streams/readBatch.ts";
import { heldAppended, holdWhileLeading, releaseAppended } from "../streams/appendedData.ts";
import { createSleeper } from "./sleeper.ts";
import { loadRelayCheckpoint, storeRelayCheckpoint } from "./relayCheckpoint.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import type { SubjectOf } from "../messages/subject.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";

export interface RelayOptions {
  pool: Pool;
  schema: string;
  nc: NatsConnection;
  subject: SubjectOf;
  logger: Logger;
  batchSize?: number;
  /**
   * How long after wake() the relay reads; default 0 (at once). A service waits a moment so
   * that the request which committed sends its whole answer first: read and published at once,
   * its events landed between that answer's gRPC message and its status, which waited on them
   * (~0.3 ms of a 1000-example PATCH). Wakes meanwhile share the one read.
   */
  wakeDelayMs?: number;
  /** Fallback poll for commits made by other replicas; default 200 ms. */
  pollIntervalMs?: number;
  /**
   * How long published progress may go unstored while events keep coming; default 250 ms,
   * far inside the stream's duplicate window (ensureStream's, 2 minutes).
   */
  checkpointEveryMs?: number;
  /** How often a standby relay tries to become the active one; default 1000 ms. */
  lockRetryMs?: number;
  publishTimeoutMs?: number;
  /** Checkpoint and lock name, for more than one relay per schema; default "default". */
  name?: string;
}

export interface Relay {
  start(): Promise<void>;
  /** A commit happened in this process: read now (or `wakeDelayMs` from now), not at the next poll. */
  wake(): void;
  /** Finishes the publish in flight, stores the checkpoint, releases the lock. */
  stop(): Promise<void>;
}

/**
 * The outbox relay: publishes committed events to JetStream in commit order, and advances
 * its checkpoint only after the PubAcks. One relay per schema is active: it holds a session
 * advisory lock on the connection it reads and checkpoints with, so losing that connection
 * loses the lock, and a standby takes over from the stored checkpoint.
 */
export function createRelay(options: RelayOptions): Relay {
  const { pool, schema, logger, subject } = options;
  quoteSchema(schema);
  const name = options.name ?? "default";
  const batchSize = options.batchSize ?? 100;
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const checkpointEveryMs = options.checkpointEveryMs ?? 250;
  const lockRetryMs = options.lockRetryMs ?? 1000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 5000;
  const wakeDelayMs = options.wakeDelayMs ?? 0;
  const lockKey = `argus.relay:${schema}:${name}`;
  const js = jetstream(options.nc);

  let running: Promise<void> | undefined;
  let stopping = false;
  let sleeper = createSleeper();
  let failures = 0;
  let waking: NodeJS.Timeout | undefined;

  async function lead(client: PoolClient, lost: () => Error | undefined): Promise<void> {
    let checkpoint = await loadRelayCheckpoint(client, schema, name);
    logger.info("relay is active", { schema, relay: name, checkpoint });
    // What the table holds, and when it was written: progress is stored at most every
    // `checkpointEveryMs` while events keep coming (a commit at a time would otherwise cost a
    // transaction of its own, each waiting on its WAL flush), and at once when the relay runs
    // out of events, fails or stops. A relay that dies between two stores publishes those
    // events again, and the stream's duplicate window drops them (publishEvent's msgID).
    let stored = checkpoint;
    let storedAt = performance.now();
    const store = async (due: boolean) => {
      if (!due || compareCheckpoints(checkpoint, stored) <= 0) return;
      await storeRelayCheckpoint(client, schema, name, checkpoint);
      stored = checkpoint;
      storedAt = performance.now();
    };
    while (!stopping) {
      sleeper.clearWake();
      const batch = await readBatchDataText(client, schema, checkpoint, batchSize, heldAppended());
      let ended = false;
      try {
        for (const event of batch) {
          const failure = lost();
          if (failure) throw failure;
          if (stopping) break;
          await publishEvent(js, subject(event), event, publishTimeoutMs);
          releaseAppended(event.eventId);
          checkpoint = checkpointOf(event);
          failures = 0;
        }
        ended = true;
      } finally {
        await store(
          !ended || batch.length === 0 || performance.now() - storedAt >= checkpointEveryMs,
        );
      }
      if (batch.length < batchSize) await sleeper.sleep(pollIntervalMs, true);
    }
    await store(true);
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let client: PoolClient | undefined;
      let failure: Error | undefined;
      const onError = (err: Error) => {
        failure ??= err;
        sleeper.wake();
      };
      try {
        client = await checkout(pool, onError);
        const { rows } = await tracedQuery<{ locked: boolean }>(
          client,
          "relay.tryLock",
          "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked",
          [lockKey],
        );
        if (rows[0]?.locked) {
          const stopHolding = holdWhileLeading();
          try {
            await lead(client, () => failure);
          } finally {
            stopHolding();
          }
          await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey]);
        }
      } catch (err) {
        failure ??= err as Error;
      }
      // Destroying a failed client ends its session, and with it the lock.
      client?.release(failure);
      if (stopping) break;
      if (failure) {
        failures++;
        logger.warn("relay failed; retrying", { schema, relay: name, err: failure.message });
        await sleeper.sleep(
          Math.max(100, backoffDelay(failures, { baseMs: 500, maxMs: 5000 })),
          false,
        );
      } else {
        // Another relay holds the lock: stand by.
        await sleeper.sleep(lockRetryMs, false);
      }
    }
  }

  return {
    async start() {
      if (running) return;
      stopping = false;
      sleeper = createSleeper();
      running = run();
    },
    wake() {
      if (wakeDelayMs <= 0) {
        sleeper.wake();
        return;
      }
      waking ??= setTimeout(() => {
        waking = undefined;
        sleeper.wake();
      }, wakeDelayMs);
    },
    async stop() {
      clearTimeout(waking);
      waking = undefined;
      stopping = true;
      sleeper.close();
      await running;
      running = undefined;
    },
  };
}
