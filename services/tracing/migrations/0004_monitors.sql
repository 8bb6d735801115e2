-- Monitors of a project's spans (projected from their events), their evaluation history and
-- schedule (rows, never events), the webhooks their channels name, and dashboards.
create table monitors (
  id uuid primary key,
  account_id uuid not null,
  organization_id uuid not null,
  space_id uuid not null,
  project_id uuid not null,
  name text not null,
  -- MonitorSettings as the last created/updated event carried them.
  settings jsonb not null,
  -- The updated_at (or created_at) text of those settings, exactly: an evaluation names the
  -- settings it computed, and one of settings changed since is dropped.
  settings_at text not null,
  metric text not null,
  dimension_category text not null,
  dimension_name text not null,
  notifications_enabled boolean not null,
  status text not null default 'NO_DATA',
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- The latest evaluation (not events: written with each evaluation's history row).
  evaluated_at timestamptz,
  latest_value double precision,
  last_window_end timestamptz
);
create index monitors_page on monitors (account_id, id desc);
create index monitors_by_project on monitors (project_id);
create index monitors_by_space on monitors (space_id);

-- When each scheduled monitor is next due, and which replica holds it (until lease_until).
-- A monitor without a row is not scheduled (manual evaluation, or its schedule disabled).
create table monitor_schedule (
  monitor_id uuid primary key references monitors on delete cascade,
  next_run_at timestamptz not null,
  lease_until timestamptz
);
create index monitor_schedule_due on monitor_schedule (next_run_at);

-- Every evaluation: the window, the value, the bounds judged against, the status. Kept as long
-- as spans are (the retention sweep).
create table monitor_evaluations (
  id uuid primary key,
  monitor_id uuid not null references monitors on delete cascade,
  window_start timestamptz not null,
  window_end timestamptz not null,
  evaluated_at timestamptz not null,
  value double precision,
  status text not null,
  previous_status text not null,
  threshold jsonb,
  in_downtime boolean not null,
  reason text not null,
  trigger text not null,
  notifications jsonb not null,
  -- A scheduled run's due time (its lag is evaluated_at - due_at); null for one made now.
  due_at timestamptz,
  -- How long measuring and judging took, for operations and the benchmarks.
  duration_ms double precision not null
);
create index monitor_evaluations_page on monitor_evaluations (monitor_id, id desc);
create index monitor_evaluations_age on monitor_evaluations (evaluated_at);

-- The webhook dispatcher's webhooks, as far as monitor channels need them (their endpoint, for
-- reading a channel back); fed by its webhook events, topped up when a channel names one.
create table channel_webhooks (
  id uuid primary key,
  account_id uuid not null,
  organization_id uuid not null,
  url text not null
);

create table dashboards (
  id uuid primary key,
  account_id uuid not null,
  space_id uuid not null,
  name text not null,
  description text not null,
  created_by_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index dashboards_page on dashboards (account_id, id desc);
create index dashboards_by_space on dashboards (space_id);

create table dashboard_widgets (
  id uuid primary key,
  dashboard_id uuid not null references dashboards on delete cascade,
  type text not null,
  -- WidgetSpec as the last added/changed event carried it.
  spec jsonb not null,
  -- What the widget draws from: when one goes, the widget goes with it.
  project_ids uuid[] not null,
  monitor_id uuid,
  creator_user_id text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index dashboard_widgets_by_dashboard on dashboard_widgets (dashboard_id);
create index dashboard_widgets_by_project on dashboard_widgets using gin (project_ids);
create index dashboard_widgets_by_monitor on dashboard_widgets (monitor_id) where monitor_id is not null;
-- A deleted webhook leaves the channels of its organization's monitors.
create index monitors_by_organization on monitors (organization_id);
