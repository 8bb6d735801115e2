create table projects (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  version integer not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Project names are unique within a space (ax-client create_project): a race is a 409.
create unique index projects_name_per_space on projects (space_id, name);
create index projects_account on projects (account_id, id desc);
