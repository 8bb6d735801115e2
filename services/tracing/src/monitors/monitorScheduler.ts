import type { Pool } from "pg";
import { tracedQuery, type CommandHandler } from "@argus/eventstore";
import { startWorkLoop } from "@argus/service-host";
import type { Clock, Logger } from "@argus/platform";
import { evaluateMonitor } from "./monitorEvaluation.ts";
import { MONITORS_CHANNEL } from "./monitorProjection.ts";
import { isInDowntime, nextRunAfter } from "./monitorRules.ts";
import { findMonitor } from "./monitorRows.ts";

/** Who evaluations on the schedule are attributed to, in their events' metadata. */
const SCHEDULER_ACTOR = "system:tracing-monitors";

export interface SchedulerOptions {
  pool: Pool;
  commands: CommandHandler;
  clock: Clock;
  logger: Logger;
  /** Evaluations in flight per replica. */
  concurrency: number;
  /** Longest wait for due work when nothing is announced. */
  pollMs: number;
  /** How long a claim holds a monitor; a replica that died lets it go when this has passed. */
  leaseMs: number;
  /** The deployment's shortest cadence: no monitor is evaluated more often on its schedule. */
  floorSeconds: number;
}

interface Due {
  monitor_id: string;
  next_run_at: Date;
  lease_until: Date;
}

/**
 * Every replica runs this loop (the kit's work loop): due monitors are claimed under skip
 * locked with a lease, so replicas share them and never take the same one at once; a replica
 * that dies mid-evaluation leaves its claim to expire, and another takes it over. A claimed
 * monitor is evaluated once for its latest window (monitorRules `nextRunAfter`: after an
 * outage each monitor catches up with ONE evaluation, never one per missed window), unless
 * its downtime or its days of the week say to skip it, and is then due again a cadence after
 * its due time. Should two replicas still evaluate one monitor (a lease that ran out
 * mid-evaluation), the event store lets only one of them append its change of status.
 */
export function startMonitorScheduler(o: SchedulerOptions): () => Promise<void> {
  const statementTimeoutMs = Math.max(1000, o.leaseMs - 5000);

  async function claim(n: number): Promise<Due[]> {
    const now = o.clock.now();
    const res = await tracedQuery<Due>(
      o.pool,
      "claim due monitors",
      `update monitor_schedule s set lease_until = $2
         from (select monitor_id from monitor_schedule
                where next_run_at <= $1 and (lease_until is null or lease_until <= $1)
                order by next_run_at limit $3 for update skip locked) due
        where s.monitor_id = due.monitor_id
        returning s.monitor_id, s.next_run_at, s.lease_until`,
      [now, new Date(now.getTime() + o.leaseMs), n],
    );
    return res.rows;
  }

  async function work(due: Due): Promise<void> {
    const row = await findMonitor(o.pool, due.monitor_id);
    if (!row) return; // deleted: its schedule went with it
    const now = o.clock.now();
    const s = row.settings;
    const days = s.schedule?.days_of_week ?? [];
    const skip =
      (s.downtime !== null && isInDowntime(s.downtime, now)) ||
      (days.length > 0 && !days.includes(now.getUTCDay()));
    try {
      if (!skip)
        await evaluateMonitor(
          { pool: o.pool, commands: o.commands, clock: o.clock, statementTimeoutMs },
          row.id,
          "SCHEDULE",
          (r) => ({ account_id: r.account_id, space_id: r.space_id, actor: SCHEDULER_ACTOR }),
          due.next_run_at,
        );
    } catch (err) {
      o.logger.warn("monitor evaluation failed", {
        monitor_id: row.id,
        err: (err as Error).message,
      });
    } finally {
      // Only while this replica still holds the claim: a change of settings meanwhile made the
      // monitor due again (and dropped the lease), and that stands.
      const next = nextRunAfter(s, due.next_run_at, o.clock.now(), o.floorSeconds);
      await tracedQuery(
        o.pool,
        "reschedule monitor",
        next === null
          ? "delete from monitor_schedule where monitor_id = $1 and lease_until = $2"
          : `update monitor_schedule set next_run_at = $3, lease_until = null
              where monitor_id = $1 and lease_until = $2`,
        next === null ? [row.id, due.lease_until] : [row.id, due.lease_until, next],
      );
    }
  }

  return startWorkLoop({
    pool: o.pool,
    channel: MONITORS_CHANNEL,
    logger: o.logger,
    pollMs: o.pollMs,
    concurrency: o.concurrency,
    claim,
    work,
  });
}
