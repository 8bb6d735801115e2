import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "pg";
import type { Logger } from "@argus/eventstore";
import { checkout } from "@argus/platform";

export interface WorkLoopOptions<T> {
  pool: Pool;
  /** Postgres channel work is announced on (`pg_notify` in the transaction that makes it). */
  channel: string;
  logger: Logger;
  /** The longest wait for work when nothing is announced (retries falling due, other replicas). */
  pollMs: number;
  /** Items in flight at most. */
  concurrency: number;
  /** Claims up to `n` items (none: nothing is due). */
  claim(n: number): Promise<T[]>;
  /** Works one item; its failure is logged, the claim's lease lets another take it over. */
  work(item: T): Promise<void>;
}

/**
 * The loop every background worker runs (webhook deliveries, task runs): claim what is due as
 * long as there is room, work each claimed item in its own promise, and otherwise sleep until
 * an announcement, a finished item or the poll interval. The returned stop waits for the items
 * in flight, so the pool outlives them.
 */
export function startWorkLoop<T>(o: WorkLoopOptions<T>): () => Promise<void> {
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wake: () => void = () => undefined;

  const waitForWork = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = () => undefined;
        resolve();
      }
      wake = done;
    });

  function launch(item: T): void {
    const p = o
      .work(item)
      .catch((err: Error) => o.logger.warn("background work failed", { err: err.message }))
      .finally(() => {
        inFlight.delete(p);
        wake();
      });
    inFlight.add(p);
  }

  async function pump(): Promise<void> {
    while (running) {
      const free = o.concurrency - inFlight.size;
      let claimed: T[] = [];
      if (free > 0)
        try {
          claimed = await o.claim(free);
        } catch (err) {
          o.logger.warn("claiming work failed", { err: (err as Error).message });
        }
      for (const item of claimed) launch(item);
      if (running && claimed.length === 0) await waitForWork(o.pollMs);
    }
  }

  // The LISTEN connection: a database restart breaks it, and announcements are lost until it
  // listens again; polling finds the work meanwhile, and a claim right after it is back finds
  // what was announced while it was gone.
  const stopping = new AbortController();
  async function listen(listens: () => void): Promise<void> {
    let lost: (err: Error) => void = () => undefined;
    const broken = new Promise<Error>((resolve) => (lost = resolve));
    const client = await checkout(o.pool, (err) => lost(err));
    try {
      client.on("notification", () => wake());
      await client.query(`listen ${o.channel}`);
      listening = true;
      listens();
      wake();
      const stopped = new Promise<undefined>((resolve) =>
        stopping.signal.addEventListener("abort", () => resolve(undefined), { once: true }),
      );
      const err = await Promise.race([broken, stopped]);
      if (err) throw err;
    } finally {
      // Never pooled again: the session LISTENs.
      client.release(true);
    }
  }

  let listening = false;
  async function keepListening(first: () => void): Promise<void> {
    for (let failures = 0; !stopping.signal.aborted; failures++) {
      if (listening) failures = 0;
      listening = false;
      try {
        // Pumping starts once the first attempt listens or fails, as before.
        await listen(first);
      } catch (err) {
        first();
        if (stopping.signal.aborted) break;
        o.logger.warn("listening for work failed; polling until it listens again", {
          err: (err as Error).message,
        });
      }
      await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)), undefined, {
        signal: stopping.signal,
      }).catch(() => undefined);
    }
  }

  let started: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => (started = resolve));
  const listenerLoop = keepListening(() => started());
  const pumping = firstAttempt.then(pump);
  return async () => {
    running = false;
    wake();
    await pumping;
    await Promise.allSettled(inFlight);
    stopping.abort();
    await listenerLoop;
  };
}
