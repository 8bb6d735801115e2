-- A RUN_EXPERIMENT run holds its experiment's name on the task's dataset while it is PENDING or
-- RUNNING (its experiment may not exist yet): a second trigger with the name is a 409, not a
-- run that fails later (the public API's trigger). Once the run ends the experiment itself, if
-- it was made, holds the name in the dataset service.
create unique index task_runs_experiment_name on task_runs
  ((options->>'experiment_dataset_id'), (options->>'experiment_name'))
  where status in ('PENDING', 'RUNNING') and options ? 'experiment_dataset_id';
