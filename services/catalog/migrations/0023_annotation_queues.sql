-- Annotation queues and their records (inline projections of annotation_queue-<uuid> streams).
create table annotation_queues (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  instructions text,
  assignment_method text not null,
  -- [annotation config id], in the caller's order.
  annotation_config_ids uuid[] not null,
  -- [{user_id, email}]
  annotators jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Names are unique within a space among live queues (deleted queues are removed): a race is a 409.
create unique index annotation_queues_name_per_space on annotation_queues (space_id, name);
create index annotation_queues_account on annotation_queues (account_id, id desc);
-- "Is this config used by a queue?" (a config in use cannot be deleted).
create index annotation_queues_configs on annotation_queues using gin (annotation_config_ids);

create table annotation_queue_records (
  id uuid primary key,
  queue_id uuid not null references annotation_queues (id) on delete cascade,
  source_type text not null,
  granularity text,
  data jsonb not null,
  -- [{user: {user_id, email}, completion_status}]
  assigned_users jsonb not null,
  created_at timestamptz not null
);
create index annotation_queue_records_queue on annotation_queue_records (queue_id, id desc);

-- One annotation per record and annotation config name, upserted.
create table annotation_queue_record_annotations (
  record_id uuid not null references annotation_queue_records (id) on delete cascade,
  name text not null,
  score double precision,
  label text,
  text text,
  annotator jsonb not null,
  updated_at timestamptz not null,
  primary key (record_id, name)
);
