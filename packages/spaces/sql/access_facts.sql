-- What lists need to apply README "Roles and permissions" in SQL without a list of the
-- account's spaces: each space's organization and private flag, and which projects are
-- restricted. Identity owns these facts; this copy is fed by its events (JetStream, so it may
-- lag, as cross-service list views may) and topped up from the synchronous look-ups that
-- single-resource checks make. Those checks never read it.
create table space_facts (
  id uuid primary key,
  account_id uuid not null,
  organization_id uuid not null,
  is_private boolean not null
);

create table restricted_projects (
  project_id uuid primary key,
  account_id uuid not null
);
