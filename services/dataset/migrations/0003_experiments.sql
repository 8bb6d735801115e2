-- Experiments and their runs. An experiment is on a dataset (the version it ran against) or,
-- without one, in a space.
create table experiments (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  dataset_id uuid,
  dataset_version_id uuid,
  name text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- A name is unique on its dataset, or in its space among experiments without a dataset (the
-- public API: "Must be unique within the target dataset or space").
create unique index experiments_name_per_dataset on experiments (dataset_id, name)
  where dataset_id is not null;
create unique index experiments_name_per_space on experiments (space_id, name)
  where dataset_id is null;
create index experiments_by_account on experiments (account_id, id desc);
create index experiments_by_dataset on experiments (dataset_id, id desc);

create table experiment_runs (
  experiment_id uuid not null references experiments (id) on delete cascade,
  id uuid not null,
  example_id uuid,
  output text not null,
  fields jsonb not null,
  created_at timestamptz not null,
  primary key (experiment_id, id)
);
