-- Invitations expire: status EXPIRED is computed from this at read time, never stored stale.
alter table users add column invitation_expires_at timestamptz;
-- A deleted user keeps its row (keys and bindings reference it) but stops authenticating
-- at once and frees its e-mail for a new invitation.
alter table users add column deleted_at timestamptz;
drop index users_email_per_account;
create unique index users_email_per_account on users (account_id, lower(email)) where deleted_at is null;
create index users_page on users (account_id, id desc);
create index roles_page on roles (id desc);
-- A restricted project is reachable only through explicit PROJECT bindings.
create table resource_restrictions (
  resource_id uuid primary key,
  account_id uuid not null references accounts(id),
  resource_type text not null check (resource_type in ('PROJECT')),
  space_id uuid,
  created_at timestamptz not null
);
