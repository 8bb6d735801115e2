-- The catalog's evaluators, AI integrations and integrations that were deleted (their ids, from
-- the catalog's events): a run that uses one stops, its calls out aborted (src/worker/runWorker.ts).
create table catalog_deletions (
  id uuid primary key,
  deleted_at timestamptz not null default now()
);
