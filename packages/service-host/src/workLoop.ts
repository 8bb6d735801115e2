import type { Pool, PoolClient } from "pg";
import type { Logger } from "@argus/eventstore";

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
  let listener: PoolClient | undefined;

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

  async function listen(): Promise<void> {
    try {
      listener = await o.pool.connect();
      listener.on("notification", () => wake());
      // A broken connection only costs the announcements: polling still finds the work.
      listener.on("error", (err) =>
        o.logger.warn("notification listener failed", { err: err.message }),
      );
      await listener.query(`listen ${o.channel}`);
    } catch (err) {
      o.logger.warn("listening for work failed", { err: (err as Error).message });
    }
  }

  const pumping = listen().then(pump);
  return async () => {
    running = false;
    wake();
    await pumping;
    await Promise.allSettled(inFlight);
    listener?.release();
  };
}
