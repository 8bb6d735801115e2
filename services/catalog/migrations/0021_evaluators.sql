-- Evaluators and their append-only versions (inline projections of evaluator-<uuid> streams).
create table evaluators (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  description text,
  type text not null,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Evaluator names are unique within a space (ax-client create_evaluator): a race is a 409.
create unique index evaluators_name_per_space on evaluators (space_id, name);
create index evaluators_account on evaluators (account_id, updated_at desc, id desc);

create table evaluator_versions (
  id uuid primary key,
  evaluator_id uuid not null references evaluators (id) on delete cascade,
  type text not null,
  commit_hash text not null,
  commit_message text not null,
  config jsonb not null,
  created_by_user_id text not null,
  created_at timestamptz not null
);
create index evaluator_versions_evaluator on evaluator_versions (evaluator_id, id desc);
