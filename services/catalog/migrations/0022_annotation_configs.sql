-- Annotation configs (inline projection of annotation_config-<uuid> streams).
create table annotation_configs (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  type text not null,
  minimum_score double precision,
  maximum_score double precision,
  -- CATEGORICAL: [{label, score|null}], in the caller's order.
  "values" jsonb not null default '[]',
  optimization_direction text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Names are unique within a space (ax-client create_annotation_config): a race is a 409.
create unique index annotation_configs_name_per_space on annotation_configs (space_id, name);
create index annotation_configs_account on annotation_configs (account_id, id desc);
