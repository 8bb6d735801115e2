-- The gateway's answers to requests sent with an Idempotency-Key (docs/architecture.md, "Safe
-- retries"; IdempotencyService). Not projected from events: facts about requests, kept 24 h.

-- One row per caller's key. in_flight: an attempt is running it under a lease (lease_until);
-- another attempt may take it over once the lease ran out (its gateway is presumed gone).
-- done: status and body are the answer every later request with the key and the same
-- fingerprint gets. A row at or past expires_at counts as absent.
create table idempotency_keys (
  scope       text not null,
  key         text not null,
  fingerprint text not null,
  state       text not null check (state in ('in_flight', 'done')),
  attempt     uuid not null,
  lease_until timestamptz not null,
  status      integer,
  body        bytea,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  primary key (scope, key),
  check (state = 'in_flight' or (status is not null and body is not null))
);
create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);
