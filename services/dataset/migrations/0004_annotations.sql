-- Annotations on examples and runs, one per record and annotation config name (upserted).
-- A record's annotations go with it: an example's with its dataset, a run's with its
-- experiment (the projections delete them).
create table annotations (
  record_kind text not null check (record_kind in ('example', 'run')),
  record_id uuid not null,
  -- The dataset (examples) or the experiment (runs): what a delete takes them away with.
  parent_id uuid not null,
  name text not null,
  score double precision,
  label text,
  text text,
  annotator_id uuid,
  updated_at timestamptz not null,
  primary key (record_kind, record_id, name)
);
create index annotations_by_parent on annotations (parent_id);
