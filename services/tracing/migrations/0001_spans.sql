-- Spans, stored set-based by ingestion (never one event each): partitioned by day of start
-- time, so retention drops whole partitions and a time window reads only its days. Each
-- partition is created on demand by the service (storage/partitions.ts) before a batch that
-- needs it; there is no default partition, so no row ever has to move.
create table spans (
  project_id uuid not null,
  start_time timestamptz not null,
  trace_id text not null,
  span_id text not null,
  -- Null for a root span.
  parent_id text,
  name text not null,
  kind text not null,
  end_time timestamptz not null,
  status_code text not null,
  status_message text not null,
  attributes jsonb not null,
  events jsonb not null,
  received_at timestamptz not null default now(),
  -- A re-sent span (OTLP retries) is the same row: ingestion skips it.
  primary key (project_id, trace_id, span_id, start_time)
) partition by range (start_time);

-- List pages: newest first, then trace and span id, within one project.
create index spans_page on spans (project_id, start_time desc, trace_id desc, span_id desc);
-- Trace pages are anchored on root spans.
create index spans_roots on spans (project_id, start_time desc, trace_id desc, span_id desc)
  where parent_id is null;
-- Deletes and annotations name spans by id.
create index spans_by_id on spans (project_id, span_id);

-- The catalog's projects as far as spans need them: where each lives, and the names OTLP
-- resources use. Fed by the catalog's project events, topped up by the synchronous look-ups.
create table projects (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null
);
-- Not unique: renames arrive in each project's order, not across projects.
create index projects_by_name on projects (space_id, name);

-- Human annotations of spans (SPAN) and of traces (TRACE), one per record and config name.
create table span_annotations (
  project_id uuid not null,
  granularity text not null check (granularity in ('SPAN', 'TRACE')),
  -- A span id (SPAN) or a trace id (TRACE).
  record_id text not null,
  name text not null,
  score double precision,
  label text,
  text text,
  annotator_id uuid,
  -- As it was when the annotation was made (the public Annotation shows it).
  annotator_email text,
  updated_at timestamptz not null,
  primary key (project_id, granularity, record_id, name)
);

-- Evaluation results on spans (written by evaluation tasks), one per span and name.
create table span_evaluations (
  project_id uuid not null,
  span_id text not null,
  name text not null,
  score double precision,
  label text,
  explanation text,
  metadata jsonb,
  updated_at timestamptz not null,
  primary key (project_id, span_id, name)
);
