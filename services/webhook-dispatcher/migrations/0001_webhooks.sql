-- Webhooks and subscriptions are projections of their events (inline, in the command's
-- transaction). Credentials live apart from them in webhook_credentials, written by the same
-- transaction and never in an event. Deliveries and attempts are operational rows: made from
-- consumed events, worked off by the delivery loop (src/delivery/).
create table webhooks (
  id uuid primary key,
  account_id uuid not null,
  organization_id uuid not null,
  name text not null,
  description text not null,
  url text not null,
  auth_type text not null,
  signing_secret_hint text not null,
  timeout_ms integer not null,
  headers jsonb not null,
  has_auth_token boolean not null,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint webhooks_name_per_organization unique (organization_id, name)
);
-- Lists: newest first, within an organization or the account.
create index webhooks_by_organization on webhooks (organization_id, created_at desc, id desc);
create index webhooks_by_account on webhooks (account_id, created_at desc, id desc);

create table webhook_credentials (
  webhook_id uuid primary key references webhooks on delete cascade,
  -- BEARER: the whole Authorization value, sent verbatim; null when none is set.
  auth_token text,
  -- HMAC_SHA256: the whsec_ secret both signature schemes are keyed with.
  signing_secret text
);

create table webhook_subscriptions (
  id uuid primary key,
  account_id uuid not null,
  organization_id uuid not null,
  webhook_id uuid not null references webhooks on delete cascade,
  source_type text not null,
  source_id uuid not null,
  space_id uuid not null,
  event text not null,
  created_at timestamptz not null,
  constraint webhook_subscriptions_once unique (webhook_id, source_type, source_id, event)
);
-- The delivery fan-out and the per-source cap read subscriptions by source and event.
create index webhook_subscriptions_by_source on webhook_subscriptions (source_type, source_id, event);
create index webhook_subscriptions_by_account
  on webhook_subscriptions (account_id, created_at desc, id desc);
create index webhook_subscriptions_by_space on webhook_subscriptions (space_id);

-- One row per (event, webhook): made once however often the event is consumed again.
create table deliveries (
  id bigint generated always as identity primary key,
  event_id uuid not null,
  webhook_id uuid not null references webhooks on delete cascade,
  -- The payload's `event` (prompt.version.created, ...): the X-Arize-Webhook-Event header.
  event text not null,
  -- The exact JSON text sent on every attempt, so every signature covers the same bytes.
  payload text not null,
  -- pending → delivered | failed | gone (the endpoint answered 410).
  state text not null default 'pending',
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker's claim: another may take the delivery once it has passed (the worker died).
  leased_until timestamptz,
  created_at timestamptz not null default now(),
  constraint deliveries_once unique (event_id, webhook_id)
);
create index deliveries_due on deliveries (next_attempt_at) where state = 'pending';

create table delivery_attempts (
  id bigint generated always as identity primary key,
  webhook_id uuid not null references webhooks on delete cascade,
  event_id uuid not null,
  attempt_number integer not null,
  payload text not null,
  status_code integer,
  error_message text,
  duration_ms integer not null,
  created_at timestamptz not null default now()
);
-- Listed newest first per webhook.
create index delivery_attempts_by_webhook on delivery_attempts (webhook_id, id desc);
-- The claim takes a few due deliveries of each webhook, so one endpoint never fills the slots.
create index deliveries_due_by_webhook on deliveries (webhook_id, next_attempt_at)
  where state = 'pending';
