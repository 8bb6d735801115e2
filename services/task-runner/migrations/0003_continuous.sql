-- Where each continuous task's evaluation has got to: the scheduler's own state, not a
-- projection. `window_end` is the end of the last window a run was made for (spans from
-- there on are new); `next_at` is when a replica looks again (claimed under skip locked).
create table continuous_windows (
  task_id uuid primary key references tasks on delete cascade,
  window_end timestamptz not null,
  next_at timestamptz not null
);
create index continuous_windows_due on continuous_windows (next_at);
