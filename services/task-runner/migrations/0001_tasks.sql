-- Tasks and runs are projections of their events (inline, in the command's transaction). A
-- run's progress counts and its worker's lease are the worker's to update directly: a run being
-- worked on is operational state, and its end is an event with the final counts.
create table tasks (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  task_type text not null,
  name text not null,
  project_id uuid,
  dataset_id uuid,
  sampling_rate double precision,
  is_continuous boolean not null,
  query_filter text,
  query_filters jsonb,
  evaluators jsonb not null,
  experiment_ids uuid[] not null,
  run_configuration jsonb,
  last_run_at timestamptz,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index tasks_by_account on tasks (account_id, created_at desc, id desc);
create index tasks_by_space on tasks (space_id);

create table task_runs (
  id uuid primary key,
  task_id uuid not null references tasks on delete cascade,
  account_id uuid not null,
  space_id uuid not null,
  status text not null,
  options jsonb not null,
  experiment_id uuid,
  data_start_time timestamptz,
  data_end_time timestamptz,
  num_successes integer not null default 0,
  num_errors integer not null default 0,
  num_skipped integer not null default 0,
  failure_reason text,
  run_started_at timestamptz,
  run_finished_at timestamptz,
  created_by_user_id text not null,
  created_at timestamptz not null,
  -- The worker holding the run; another takes it over once the lease has passed.
  leased_until timestamptz
);
create index task_runs_by_task on task_runs (task_id, created_at desc, id desc);
create index task_runs_to_work on task_runs (created_at) where status in ('PENDING', 'RUNNING');

-- One evaluation per run, item and evaluator: a run resumed by another worker skips what is
-- already evaluated, so no item gets two evaluations. A verdict is kept here first and written
-- to the item's service after (`written`): a worker that dies between the two leaves the write
-- to the next, which never mistakes this run's own labels for an earlier run's.
create table task_run_items (
  run_id uuid not null references task_runs on delete cascade,
  item_id text not null,
  evaluator_id uuid not null,
  -- true: evaluated; false: the evaluator failed on it; null: skipped (already labeled).
  ok boolean,
  -- Where the verdict goes: the experiment (dataset tasks) or the project (project tasks).
  target text,
  -- {name, label, score, explanation} of an evaluated item.
  verdict jsonb,
  written boolean not null default false,
  primary key (run_id, item_id, evaluator_id)
);
create index task_run_items_unwritten on task_run_items (run_id) where verdict is not null and not written;
