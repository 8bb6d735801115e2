-- Bulk uploads (Arrow Flight): the rows of an upload are staged under its import as they
-- arrive, invisible to every reader, and one event (DatasetExamplesImported,
-- ExperimentRunsImported) makes them visible when the upload ends. The chunks are the rows that
-- event stands for: like events, they are never changed, and they stay as long as it does (a
-- replay reads them). An import no event names (committed_at null) is an upload that failed or
-- was cut off: it is dropped once idle (src/bulk/staging.ts).
create table imports (
  id uuid primary key,
  kind text not null check (kind in ('examples', 'runs')),
  account_id uuid not null,
  started_at timestamptz not null,
  touched_at timestamptz not null,
  -- Set in the transaction that appends the import's event.
  committed_at timestamptz
);
create index imports_idle on imports (touched_at) where committed_at is null;

create table import_chunks (
  import_id uuid not null references imports (id) on delete cascade,
  seq integer not null,
  -- A JSON array of rows (examples: {id, fields}; runs: {n, id, example_id, output, fields}).
  rows text not null,
  primary key (import_id, seq)
);
-- Written once and read by the one projection (and replays): compressing costs more than it saves.
alter table import_chunks alter column rows set storage external;

-- The kind of one JSON value, as a bit (argus.dataset.v1.ColumnKind): string 1, boolean 2,
-- integer 4 (up to 18 digits), other number 8, object or array 16, null 0.
create function json_kind(v jsonb) returns integer
  language sql immutable parallel safe
  as $$
    select case jsonb_typeof(v)
      when 'string' then 1
      when 'boolean' then 2
      when 'number' then case when v::text ~ '^-?[0-9]{1,18}$' then 4 else 8 end
      when 'null' then 0
      else 16
    end
  $$;

-- The fields a version's examples (an experiment's runs) hold, with the kinds of their values,
-- in the order they first appeared: a download's columns, known before its first row. Every
-- write that adds fields adds to them; removing fields never does (a column can only be
-- all null, never missing).
create table example_columns (
  version_id uuid not null references dataset_versions (id) on delete cascade,
  name text not null,
  kinds integer not null,
  seq bigint generated always as identity,
  primary key (version_id, name)
);
create table run_columns (
  experiment_id uuid not null references experiments (id) on delete cascade,
  name text not null,
  kinds integer not null,
  seq bigint generated always as identity,
  primary key (experiment_id, name)
);

insert into example_columns (version_id, name, kinds)
select e.version_id, f.key, bit_or(json_kind(f.value))
  from examples e cross join lateral jsonb_each(e.fields) f
 where not e.deleted
 group by e.version_id, f.key
 order by e.version_id, min(e.id::text), f.key;

insert into run_columns (experiment_id, name, kinds)
select r.experiment_id, f.key, bit_or(json_kind(f.value))
  from experiment_runs r cross join lateral jsonb_each(r.fields) f
 group by r.experiment_id, f.key
 order by r.experiment_id, min(r.id::text), f.key;
