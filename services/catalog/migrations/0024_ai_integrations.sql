-- AI integrations (inline projection of ai_integration-<uuid> streams).
create table ai_integrations (
  id uuid primary key,
  account_id uuid not null,
  name text not null,
  provider text not null,
  base_url text,
  model_names text[] not null,
  headers jsonb,
  enable_default_models boolean not null,
  function_calling_enabled boolean not null,
  auth_type text not null,
  provider_metadata jsonb,
  -- [{organization_id, space_id}] (null ids widen the scope); empty: account-wide.
  scopings jsonb not null,
  -- Space ids named by the scopings, for list filtering and authorization.
  scoped_space_ids uuid[] not null,
  has_api_key boolean not null,
  api_key_hint text not null,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- Names are unique within the account (ax-client create_ai_integration): a race is a 409.
create unique index ai_integrations_name_per_account on ai_integrations (account_id, name);
create index ai_integrations_account on ai_integrations (account_id, id desc);

-- The provider API keys. Write-only: never in an event, a reply or a log; only the workers
-- that call providers read them. Written in the transaction of the integration's events.
create table ai_integration_secrets (
  integration_id uuid primary key references ai_integrations (id) on delete cascade,
  api_key text not null
);
