-- The authorization model shared by every identity feature (ARCHITECTURE §8): roles are sets
-- of the spec's permission identifiers; role bindings grant a role to a user or a service
-- account on an organization, a space or a project; SERVICE keys act as a service account.

-- Predefined roles have no account (shared by all, immutable); custom roles belong to one.
create table roles (
  id uuid primary key,
  account_id uuid references accounts(id),
  name text not null,
  description text not null default '',
  permissions text[] not null,
  is_predefined boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check (is_predefined = (account_id is null))
);
create unique index roles_name_per_account
  on roles (coalesce(account_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));

create table service_accounts (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  name text not null,
  created_by_user_id uuid references users(id),
  created_at timestamptz not null
);

create table role_bindings (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  role_id uuid not null references roles(id),
  subject_type text not null check (subject_type in ('USER', 'SERVICE_ACCOUNT')),
  subject_id uuid not null,
  resource_type text not null check (resource_type in ('ORGANIZATION', 'SPACE', 'PROJECT')),
  resource_id uuid not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint role_bindings_one_per_resource unique (subject_type, subject_id, resource_type, resource_id)
);
create index role_bindings_subject on role_bindings (subject_type, subject_id);
create index role_bindings_resource on role_bindings (resource_type, resource_id);

alter table api_keys add column service_account_id uuid references service_accounts(id);
