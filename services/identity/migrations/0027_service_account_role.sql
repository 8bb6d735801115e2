-- A service account's account-level role (the public API's bot user account_role): MEMBER (it
-- acts only through its bindings) or ADMIN (an account admin's key for automation). Service
-- accounts made before it are MEMBER, as their events (without the field) say.
alter table service_accounts
  add column account_role text not null default 'MEMBER' check (account_role in ('ADMIN', 'MEMBER'));
