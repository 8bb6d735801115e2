-- AGENT and EVALUATOR integrations: remote endpoints (inline projection of integration-<uuid>
-- streams). LLM integrations of the public /v2/integrations group are the ai_integrations.
create table integrations (
  id uuid primary key,
  account_id uuid not null,
  type text not null,
  name text not null,
  description text,
  endpoint text not null,
  input_schema jsonb not null,
  header_names text[] not null,
  request_presets jsonb not null,
  -- [{organization_id, space_id}] (null ids widen the scope); empty: account-wide.
  scopings jsonb not null,
  scoped_space_ids uuid[] not null,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
-- AGENT and EVALUATOR names share one namespace per account (the public API): a race is a 409.
create unique index integrations_name_per_account on integrations (account_id, name);
create index integrations_account on integrations (account_id, id desc);

-- Header values. Write-only: never in an event, a reply or a log; only the workers that call
-- the endpoint read them. Written in the transaction of the integration's events.
create table integration_secrets (
  integration_id uuid primary key references integrations (id) on delete cascade,
  headers jsonb not null
);
