import { projector, tracedQuery, type Projections } from "@argus/eventstore";
import type { TaskRunnerEvent, TaskSettings } from "@argus/contracts";

const settingsParams = (d: TaskSettings) => [
  d.name,
  d.sampling_rate,
  d.is_continuous,
  d.query_filter,
  d.query_filters === null ? null : JSON.stringify(d.query_filters),
  JSON.stringify(d.evaluators),
];

// Task and run rows, in the command's transaction. A deleted task takes its runs with it.
const projections: Projections<TaskRunnerEvent> = {
  TaskCreated: (client, d) =>
    tracedQuery(
      client,
      "task created",
      `insert into tasks (name, sampling_rate, is_continuous, query_filter, query_filters,
         evaluators, id, account_id, space_id, task_type, project_id, dataset_id, experiment_ids,
         run_configuration, created_by_user_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)`,
      [
        ...settingsParams(d),
        d.id,
        d.account_id,
        d.space_id,
        d.task_type,
        d.project_id,
        d.dataset_id,
        d.experiment_ids,
        d.run_configuration === null ? null : JSON.stringify(d.run_configuration),
        d.created_by_user_id,
        d.created_at,
      ],
    ),
  TaskUpdated: (client, d) =>
    tracedQuery(
      client,
      "task updated",
      `update tasks set name = $1, sampling_rate = $2, is_continuous = $3, query_filter = $4,
         query_filters = $5, evaluators = $6, updated_at = $8,
         run_configuration = case when $9 then $10::jsonb else run_configuration end
       where id = $7`,
      [
        ...settingsParams(d),
        d.id,
        d.updated_at,
        d.run_configuration !== undefined,
        d.run_configuration === undefined || d.run_configuration === null
          ? null
          : JSON.stringify(d.run_configuration),
      ],
    ),
  TaskDeleted: (client, d) =>
    tracedQuery(client, "task deleted", "delete from tasks where id = $1", [d.id]),
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

export const project = projector<TaskRunnerEvent>("task-runner", projections);
