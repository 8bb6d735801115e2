-- API keys: a refresh keeps the key's id and swaps its secret; the previous secret may keep
-- authenticating until valid_until (the refresh's grace period). Like api_key_secrets, this
-- is secret material outside the event-derived tables.
create table api_key_grace_secrets (
  key_hash bytea primary key,
  api_key_id uuid not null references api_keys(id),
  valid_until timestamptz not null
);
create index api_key_grace_secrets_key on api_key_grace_secrets (api_key_id);

-- Listing: USER keys by creator, SERVICE keys by bound space (through role_bindings).
create index api_keys_account_page on api_keys (account_id, key_type, status, id desc);
create index api_keys_service_account on api_keys (service_account_id);

-- The audit log: one row per event of any service, consumed from JetStream.
create table audit_log (
  id uuid primary key,
  event_id uuid not null unique,
  account_id uuid not null,
  actor_user_id uuid,
  actor_service_account_id uuid,
  api_key_id uuid,
  client_ip text not null default '',
  request_id text not null default '',
  operation_name text not null,
  operation_type text not null,
  resource_type text not null,
  resource_id text not null,
  variables jsonb not null,
  occurred_at timestamptz not null
);
create index audit_log_account_page on audit_log (account_id, id desc);
create index audit_log_account_time on audit_log (account_id, occurred_at);
