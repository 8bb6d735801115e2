create table accounts (
  id uuid primary key,
  name text not null,
  created_at timestamptz not null
);
-- Set once by headless initialization so restarts find what they created.
create table installation (
  singleton boolean primary key default true check (singleton),
  account_id uuid not null references accounts(id)
);
create table organizations (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  name text not null,
  description text not null default '',
  created_at timestamptz not null,
  constraint organizations_name_per_account unique (account_id, name)
);
create table users (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  email text not null,
  name text not null,
  account_role text not null check (account_role in ('admin', 'member', 'annotator')),
  is_developer boolean not null,
  status text not null,
  created_at timestamptz not null
);
create unique index users_email_per_account on users (account_id, lower(email));
create table spaces (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  organization_id uuid not null references organizations(id),
  name text not null,
  description text not null,
  is_private boolean not null,
  created_at timestamptz not null
);
-- Space names are unique per organization (spec endpoint 5): a racing duplicate is a 409.
create unique index spaces_name_per_org on spaces (organization_id, name);
create index spaces_org_page on spaces (organization_id, id desc);
create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  key_type text not null check (key_type in ('USER', 'SERVICE')),
  user_id uuid references users(id),
  created_by_user_id uuid not null references users(id),
  name text not null,
  description text not null default '',
  redacted_key text not null,
  status text not null check (status in ('ACTIVE', 'REVOKED')),
  created_at timestamptz not null,
  expires_at timestamptz,
  last_used_at timestamptz
);
-- Secret material lives outside the event-derived tables: events are published to
-- JetStream and must never carry a key hash, and a projection rebuild must not lose it.
create table api_key_secrets (
  api_key_id uuid primary key references api_keys(id),
  key_hash bytea not null unique
);
