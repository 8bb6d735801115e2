import type { Pool, PoolClient } from "pg";
import type { ResolvedThreshold } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";
import type { MonitorEvaluation } from "@argus/proto/tracing/v1/monitors";
import { isUuid } from "@argus/spaces";
import type { EvaluationRecord } from "./monitorEvaluation.ts";
import { resolvedMessage } from "./monitorMessages.ts";
import type { NotificationOutcome } from "./monitorRules.ts";

interface EvaluationRow {
  id: string;
  monitor_id: string;
  window_start: Date;
  window_end: Date;
  evaluated_at: Date;
  value: number | null;
  status: string;
  previous_status: string;
  threshold: ResolvedThreshold | null;
  in_downtime: boolean;
  reason: string;
  trigger: string;
  notifications: NotificationOutcome[];
}

const COLUMNS = `id, monitor_id, window_start, window_end, evaluated_at, value, status,
  previous_status, threshold, in_downtime, reason, trigger, notifications`;

function message(r: EvaluationRow): MonitorEvaluation {
  return {
    id: r.id,
    monitorId: r.monitor_id,
    windowStart: r.window_start.toISOString(),
    windowEnd: r.window_end.toISOString(),
    evaluatedAt: r.evaluated_at.toISOString(),
    ...(r.value === null ? {} : { value: r.value }),
    status: r.status,
    threshold: resolvedMessage(r.threshold),
    previousStatus: r.previous_status,
    inDowntime: r.in_downtime,
    reason: r.reason,
    trigger: r.trigger,
    notifications: r.notifications,
  };
}

/** An evaluation just recorded, as answered. */
export const evaluationMessage = (r: EvaluationRecord): MonitorEvaluation =>
  message({
    id: r.id,
    monitor_id: r.monitorId,
    window_start: r.window.start,
    window_end: r.window.end,
    evaluated_at: r.evaluatedAt,
    value: r.outcome.value,
    status: r.outcome.status,
    previous_status: r.previousStatus,
    threshold: r.outcome.threshold,
    in_downtime: r.outcome.inDowntime,
    reason: r.outcome.reason,
    trigger: r.trigger,
    notifications: r.notifications,
  });

type Db = Pool | PoolClient;

export async function latestEvaluation(
  db: Db,
  monitorId: string,
): Promise<MonitorEvaluation | undefined> {
  const res = await tracedQuery<EvaluationRow>(
    db,
    "latest monitor evaluation",
    `select ${COLUMNS} from monitor_evaluations where monitor_id = $1 order by id desc limit 1`,
    [monitorId],
  );
  return res.rows[0] && message(res.rows[0]);
}

/** A monitor's evaluations, newest first (their ids are time-ordered), keyset paged by id. */
export async function evaluationsPage(
  db: Db,
  monitorId: string,
  page: PageRequest | undefined,
): Promise<{ evaluations: MonitorEvaluation[]; nextAfter: string }> {
  const after = page?.after && isUuid(page.after) ? page.after : null;
  const res = await tracedQuery<EvaluationRow>(
    db,
    "monitor evaluations",
    `select ${COLUMNS} from monitor_evaluations
      where monitor_id = $1 and ($2::uuid is null or id < $2)
      order by id desc limit $3`,
    [monitorId, after, fetchSize(page)],
  );
  const { items, nextAfter } = pageOf(res.rows, page, (r) => r.id);
  return { evaluations: items.map(message), nextAfter };
}
