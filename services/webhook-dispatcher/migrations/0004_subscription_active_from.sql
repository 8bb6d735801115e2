-- A subscription delivers the events recorded after it was created, not those already on their
-- way (an event of the prompt's first version could reach the dispatcher after a subscription
-- made right after it). Both sides are database time (the subscription's transaction, the
-- event's recorded_at), so a service clock pinned in tests does not move the cut-off.
-- Subscriptions made before this migration deliver everything, as they did.
alter table webhook_subscriptions add column active_from timestamptz not null default '-infinity';
alter table webhook_subscriptions alter column active_from set default now();
