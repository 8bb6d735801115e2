import { tracedQuery, type Queryable } from "@argus/eventstore";
import { notFound, type CallContext } from "@argus/platform";
import type { TaskRunStatus } from "@argus/contracts";
import type { TaskRun } from "@argus/proto/tasks/v1/tasks";
import { isUuid, rowInAccount } from "@argus/spaces";

export interface RunRow {
  id: string;
  task_id: string;
  account_id: string;
  space_id: string;
  status: TaskRunStatus;
  options: Record<string, unknown>;
  experiment_id: string | null;
  data_start_time: Date | null;
  data_end_time: Date | null;
  num_successes: number;
  num_errors: number;
  num_skipped: number;
  failure_reason: string | null;
  run_started_at: Date | null;
  run_finished_at: Date | null;
  created_by_user_id: string;
  created_at: Date;
}

export const RUN_COLUMNS = `id, task_id, account_id, space_id, status, options, experiment_id,
  data_start_time, data_end_time, num_successes, num_errors, num_skipped, failure_reason,
  run_started_at, run_finished_at, created_by_user_id, created_at`;

const iso = (d: Date | null) => d?.toISOString() ?? "";

export const toRun = (r: RunRow): TaskRun => ({
  id: r.id,
  taskId: r.task_id,
  status: r.status,
  experimentId: r.experiment_id ?? "",
  runStartedAt: iso(r.run_started_at),
  runFinishedAt: iso(r.run_finished_at),
  dataStartTime: iso(r.data_start_time),
  dataEndTime: iso(r.data_end_time),
  numSuccesses: r.num_successes,
  numErrors: r.num_errors,
  numSkipped: r.num_skipped,
  createdAt: r.created_at.toISOString(),
  createdByUserId: r.created_by_user_id,
  ...(r.failure_reason === null ? {} : { failureReason: r.failure_reason }),
});

export async function runRow(db: Queryable, ctx: CallContext, id: string): Promise<RunRow> {
  return rowInAccount<RunRow>(db, ctx, "task_runs", RUN_COLUMNS, id, "task run");
}

/** Where a run's task lives, as authorization sees it (placeOf, kindOf). */
export interface TaskPlace {
  account_id: string;
  space_id: string;
  project_id: string | null;
}

/**
 * The run, if it is in the caller's account, with its task's place, in one statement: a client
 * watching a run polls this, so each look is one round trip, not two.
 */
export async function runWithPlace(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<{ run: RunRow; task: TaskPlace }> {
  if (!isUuid(id)) throw notFound("task run");
  const res = await tracedQuery<RunRow & { task: TaskPlace | null }>(
    db,
    "task run with its task's place",
    `select ${RUN_COLUMNS},
            (select json_build_object('account_id', t.account_id, 'space_id', t.space_id,
                                      'project_id', t.project_id)
               from tasks t where t.id = task_runs.task_id and t.account_id = $2) as task
       from task_runs where id = $1 and account_id = $2`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row) throw notFound("task run");
  const { task, ...run } = row;
  if (!task) throw notFound("task");
  return { run, task };
}
