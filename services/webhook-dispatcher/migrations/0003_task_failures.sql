-- The last failure delivered for each online task: ONLINE_TASK_RUN_FAILED is sent once when a
-- task starts failing and again each time the cause changes (the public API's rule); a
-- completed run clears it.
create table task_failures (
  task_id uuid primary key,
  failure_reason text not null
);
