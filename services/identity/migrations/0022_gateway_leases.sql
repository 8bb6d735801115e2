-- The principal cache's invalidation (docs/architecture.md, "Principal cache and invalidation").
-- Not projected from events: these are facts about running gateways, not about the domain.

-- Each gateway process's lease on its cache, renewed every lease/3. A command that changes
-- authorization waits for every gateway whose lease is live (expires_at > now()) to confirm
-- the invalidation, or for that lease to run out.
create table gateway_leases (
  gateway_id text primary key,
  expires_at timestamptz not null
);

-- One row: bumped after every such command commits. A renewal reads it `for share` in the
-- transaction that writes its lease, so a renewal committed after a bump returns the new epoch
-- and one committed before it left a lease the bump's command sees and waits for.
create table authz_epoch (
  only_row boolean primary key default true check (only_row),
  epoch bigint not null
);
insert into authz_epoch (epoch) values (0);
