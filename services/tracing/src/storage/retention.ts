import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { Clock, Logger } from "@argus/platform";
import type { SpanStore } from "./spanStore.ts";
import { dayOfMs } from "./time.ts";

const HOUR = 3_600_000;

/**
 * Drops the days of spans older than retention, whole (never row by row), at start and every
 * hour. Ingestion refuses spans from the last kept day on, so a day is dropped a day after
 * the last span that could land in it was accepted. Monitors' evaluations are kept as long as
 * the spans they measured. Every replica runs it; a lock orders the drops.
 */
export function startRetention(
  store: SpanStore,
  retentionDays: number,
  logger: Logger,
  clock: Clock,
  pool?: Pool,
): () => void {
  const sweep = async () => {
    await store
      .dropDaysBefore(dayOfMs(clock.now().getTime()) - retentionDays)
      .then((n) => {
        if (n > 0) logger.info("dropped span partitions past retention", { partitions: n });
      })
      .catch((err: Error) => logger.warn("span retention sweep failed", { err: err.message }));
    if (pool)
      await tracedQuery(
        pool,
        "monitor evaluations past retention",
        "delete from monitor_evaluations where evaluated_at < $1",
        [new Date(clock.now().getTime() - retentionDays * 86_400_000)],
      ).catch((err: Error) =>
        logger.warn("monitor evaluation retention failed", { err: err.message }),
      );
  };
  void sweep();
  const timer = setInterval(() => void sweep(), HOUR);
  timer.unref();
  return () => clearInterval(timer);
}
