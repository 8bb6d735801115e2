import { tracedQuery, type Projections } from "@argus/eventstore";
import type { TaskRunEvent } from "@argus/contracts";

/** Run rows, in the command's transaction; a new run is its task's last run. */
export const taskRunProjections: Projections<TaskRunEvent> = {
  async TaskRunCreated(client, d) {
    await tracedQuery(
      client,
      "task run created",
      `insert into task_runs (id, task_id, account_id, space_id, status, options, data_start_time,
         data_end_time, created_by_user_id, created_at)
       values ($1, $2, $3, $4, 'PENDING', $5, $6, $7, $8, $9)`,
      [
        d.id,
        d.task_id,
        d.account_id,
        d.space_id,
        JSON.stringify(d.options),
        d.data_start_time,
        d.data_end_time,
        d.created_by_user_id,
        d.created_at,
      ],
    );
    await tracedQuery(client, "task last run", "update tasks set last_run_at = $2 where id = $1", [
      d.task_id,
      d.created_at,
    ]);
  },
  TaskRunStarted: (client, d) =>
    tracedQuery(
      client,
      "task run started",
      `update task_runs set status = 'RUNNING', run_started_at = $2,
         experiment_id = coalesce($3, experiment_id)
       where id = $1`,
      [d.id, d.started_at, d.experiment_id ?? null],
    ),
  TaskRunFinished: (client, d) =>
    tracedQuery(
      client,
      "task run finished",
      `update task_runs set status = $2, num_successes = $3, num_errors = $4, num_skipped = $5,
         experiment_id = coalesce($6, experiment_id), failure_reason = $7, run_finished_at = $8,
         leased_until = null
       where id = $1`,
      [
        d.id,
        d.status,
        d.num_successes,
        d.num_errors,
        d.num_skipped,
        d.experiment_id,
        d.failure_reason,
        d.finished_at,
      ],
    ),
};
