-- A page's verdicts are recorded under one id (task_run_items.page), and the page is marked
-- written with one row here once its write to the item's service is done, instead of an update
-- of each of its items (500 rows rewritten per page, every index entry with them). An item is
-- written when its own flag says so (items recorded before this, and a take-over's writes of
-- what a dead worker kept) or when its page is here.
alter table task_run_items add column page uuid;

create table task_run_pages_written (
  run_id uuid not null references task_runs on delete cascade,
  page uuid not null,
  primary key (run_id, page)
);
