-- Datasets, their versions and examples: the inline projections of the dataset service's
-- events, written in the transaction that appends them.
create table datasets (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- A name is unique in its space (the public API: "Must be unique within the space").
create unique index datasets_name_per_space on datasets (space_id, name);
create index datasets_by_account on datasets (account_id, id desc);

-- A version reads its examples through its lineage: itself first, then its parent, and so on.
-- A new version copies nothing; it holds only what it changed (docs/datasets.md).
create table dataset_versions (
  id uuid primary key,
  dataset_id uuid not null references datasets (id) on delete cascade,
  name text not null,
  parent_id uuid references dataset_versions (id) on delete cascade,
  lineage uuid[] not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create unique index dataset_versions_name_per_dataset on dataset_versions (dataset_id, name);
create index dataset_versions_by_dataset on dataset_versions (dataset_id, id desc);
create index dataset_versions_by_parent on dataset_versions (parent_id);

-- The examples a version wrote itself: added, changed, or (deleted) hidden from it. A version's
-- example is the row of the first version of its lineage that has one.
create table examples (
  version_id uuid not null,
  id uuid not null,
  dataset_id uuid not null,
  fields jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted boolean not null default false,
  primary key (version_id, id)
);
-- Keyset pages of one dataset's examples in id order (uuid v7: creation order), any version.
create index examples_by_dataset on examples (dataset_id, id);
