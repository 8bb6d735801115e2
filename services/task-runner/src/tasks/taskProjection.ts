import { tracedQuery, type Projections } from "@argus/eventstore";
import type { TaskEvent, TaskSettings } from "@argus/contracts";

const settingsParams = (d: TaskSettings) => [
  d.name,
  d.sampling_rate,
  d.is_continuous,
  d.query_filter,
  d.query_filters === null ? null : JSON.stringify(d.query_filters),
  JSON.stringify(d.evaluators),
];

/** Task rows, in the command's transaction. A deleted task takes its runs with it. */
export const taskProjections: Projections<TaskEvent> = {
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
  // Its runs go by their foreign key; their items and written pages (keyed by run, no foreign
  // key: migration 0008) with them here.
  TaskDeleted: (client, d) =>
    tracedQuery(
      client,
      "task deleted",
      `with runs as (select id from task_runs where task_id = $1),
            items as (delete from task_run_items where run_id in (select id from runs)),
            pages as (delete from task_run_pages_written where run_id in (select id from runs))
       delete from tasks where id = $1`,
      [d.id],
    ),
};
