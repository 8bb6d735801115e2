import { performance } from "node:perf_hooks";
import type { Pool, PoolClient } from "pg";
import { streamId, type MonitorStatusChanged } from "@argus/contracts";
import { tracedQuery, type CommandHandler, type EventMetadata } from "@argus/eventstore";
import { checkout, uuidv7, type Clock } from "@argus/platform";
import { measureSeries, measureWindow, type MetricSpec } from "./metricSql.ts";
import { monitorDecider, StaleEvaluation } from "./monitorDecider.ts";
import {
  assess,
  DYNAMIC_BASELINE_WINDOWS,
  notificationsOf,
  windowAt,
  type NotificationOutcome,
  type Outcome,
} from "./monitorRules.ts";
import { findMonitor, type MonitorRow } from "./monitorRows.ts";

export interface EvaluatorDeps {
  pool: Pool;
  commands: CommandHandler;
  clock: Clock;
  /** The longest a metric's queries may run: below the scheduler's lease. */
  statementTimeoutMs: number;
}

export type Trigger = "SCHEDULE" | "MANUAL";

export interface EvaluationRecord {
  id: string;
  monitorId: string;
  window: { start: Date; end: Date };
  evaluatedAt: Date;
  outcome: Outcome;
  previousStatus: string;
  trigger: Trigger;
  notifications: NotificationOutcome[];
  /** A scheduled run's due time; null for an evaluation made now. */
  dueAt: Date | null;
  durationMs: number;
}

/** A newer evaluation of the monitor was recorded first: this one is dropped. */
class Superseded extends Error {}

/** The metric's queries in one read-only transaction, none running past the timeout. */
async function withTimeout<T>(
  pool: Pool,
  ms: number,
  fn: (c: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await checkout(pool);
  try {
    await client.query("begin read only");
    await client.query(`set local statement_timeout = ${Math.max(1, Math.floor(ms))}`);
    const out = await fn(client);
    await client.query("commit");
    return out;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * What the metric is in the window (one aggregate), and for a dynamic threshold in each of the
 * DYNAMIC_BASELINE_WINDOWS windows before it (one grouped aggregate): the windows with data.
 */
async function measure(d: EvaluatorDeps, row: MonitorRow, window: { start: Date; end: Date }) {
  const s = row.settings;
  const spec: MetricSpec = { metric: s.metric, dimension: s.dimension, filters: s.filters };
  return withTimeout(d.pool, d.statementTimeoutMs, async (client) => {
    const current = await measureWindow(client, spec, row.project_id, window);
    let baseline: number[] = [];
    if (current.spans > 0 && s.threshold.type.startsWith("DYNAMIC")) {
      const from = new Date(
        window.start.getTime() - DYNAMIC_BASELINE_WINDOWS * s.window_seconds * 1000,
      );
      const series = await measureSeries(
        client,
        spec,
        row.project_id,
        from,
        s.window_seconds,
        DYNAMIC_BASELINE_WINDOWS,
      );
      baseline = series.flatMap((p) => (p.spans > 0 && p.value !== null ? [p.value] : []));
    }
    return { ...current, baseline };
  });
}

/**
 * One evaluation of a monitor, now: the metric over its latest window (ending `delay_seconds`
 * before now), judged against its threshold. In ONE transaction: the decision on the
 * monitor's stream at the version read (a change of status is an event, appended once however
 * many replicas evaluate: a second append at that version fails and, run again, finds the
 * status already changed), the monitor's latest value (only when this window ends after the
 * last one recorded) and the evaluation's history row. Settings changed while the metric was
 * computed: computed again (twice at most). Undefined: the monitor is gone, or a newer
 * evaluation was recorded meanwhile.
 */
export async function evaluateMonitor(
  d: EvaluatorDeps,
  monitorId: string,
  trigger: Trigger,
  metadata: (row: MonitorRow) => EventMetadata,
  dueAt: Date | null = null,
): Promise<EvaluationRecord | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = performance.now();
    const row = await findMonitor(d.pool, monitorId);
    if (!row) return undefined;
    const at = d.clock.now();
    const window = windowAt(row.settings, at);
    const outcome = assess(row.settings, await measure(d, row, window), at);
    const id = uuidv7(at.getTime());
    try {
      return await d.commands.transact(async (scope) => {
        const decision = await scope.decide(
          streamId("monitor", monitorId),
          monitorDecider,
          {
            type: "RecordEvaluation",
            evaluationId: id,
            settingsAt: row.settings_at,
            outcome,
            window,
            evaluatedAt: at,
          },
          metadata(row),
        );
        const changed = decision.events[0] as MonitorStatusChanged | undefined;
        const after = decision.state;
        const record: EvaluationRecord = {
          id,
          monitorId,
          window,
          evaluatedAt: at,
          outcome,
          previousStatus: changed
            ? changed.data.previous_status
            : after.status === "live"
              ? after.monitorStatus
              : "NO_DATA",
          trigger,
          notifications: changed?.data.notify ? notificationsOf(changed.data.channels) : [],
          dueAt,
          durationMs: performance.now() - started,
        };
        const latest = await tracedQuery(
          scope.client,
          "monitor latest evaluation",
          `update monitors set evaluated_at = $2, latest_value = $3, last_window_end = $4
            where id = $1 and (last_window_end is null or last_window_end < $4)`,
          [monitorId, at, outcome.value, window.end],
        );
        if ((latest.rowCount ?? 0) === 0) throw new Superseded();
        await insertEvaluation(scope.client, record);
        return record;
      });
    } catch (err) {
      if (err instanceof StaleEvaluation) continue;
      if (err instanceof Superseded) return undefined;
      throw err;
    }
  }
  return undefined;
}

async function insertEvaluation(client: PoolClient, r: EvaluationRecord): Promise<void> {
  await tracedQuery(
    client,
    "monitor evaluation",
    `insert into monitor_evaluations (id, monitor_id, window_start, window_end, evaluated_at,
       value, status, previous_status, threshold, in_downtime, reason, trigger, notifications,
       due_at, duration_ms)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      r.id,
      r.monitorId,
      r.window.start,
      r.window.end,
      r.evaluatedAt,
      r.outcome.value,
      r.outcome.status,
      r.previousStatus,
      r.outcome.threshold === null ? null : JSON.stringify(r.outcome.threshold),
      r.outcome.inDowntime,
      r.outcome.reason,
      r.trigger,
      JSON.stringify(r.notifications),
      r.dueAt,
      r.durationMs,
    ],
  );
}
