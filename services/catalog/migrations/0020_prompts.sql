-- Prompts, their immutable versions and their movable labels (inline projections of the
-- prompt-<uuid> streams).
create table prompts (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  description text,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Prompt names are unique within a space (ax-client create_prompt): a race is a 409.
create unique index prompts_name_per_space on prompts (space_id, name);
create index prompts_account on prompts (account_id, updated_at desc, id desc);

create table prompt_versions (
  id uuid primary key,
  prompt_id uuid not null references prompts (id) on delete cascade,
  commit_hash text not null,
  commit_message text not null,
  input_variable_format text not null,
  provider text not null,
  model text not null,
  messages jsonb not null,
  invocation_params jsonb,
  provider_params jsonb,
  created_by_user_id text not null,
  created_at timestamptz not null
);
create index prompt_versions_prompt on prompt_versions (prompt_id, id desc);

-- A label names at most one version of a prompt; setting it elsewhere moves it.
create table prompt_labels (
  prompt_id uuid not null references prompts (id) on delete cascade,
  label text not null,
  version_id uuid not null references prompt_versions (id) on delete cascade,
  primary key (prompt_id, label)
);
create index prompt_labels_version on prompt_labels (version_id);
