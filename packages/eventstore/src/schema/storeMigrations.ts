import type { Migration } from "./migration.ts";

/**
 * The store's own tables, applied before a service's migrations in the same schema. They
 * are migrations like any other: append new entries, never edit applied ones.
 */
export const storeMigrations: readonly Migration[] = [
  {
    id: "eventstore/0001_events",
    sql: `
      CREATE TABLE events (
        global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
        stream_id       text NOT NULL,
        stream_version  integer NOT NULL CHECK (stream_version > 0),
        event_id        uuid NOT NULL UNIQUE,
        event_type      text NOT NULL,
        data            jsonb NOT NULL,
        metadata        jsonb NOT NULL,
        recorded_at     timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
      );
      -- The relay and replay read in commit order.
      CREATE INDEX events_commit_order_idx ON events (transaction_id, global_position);`,
  },
  {
    id: "eventstore/0002_relay_checkpoints",
    sql: `
      CREATE TABLE relay_checkpoints (
        relay           text PRIMARY KEY,
        transaction_id  xid8 NOT NULL,
        global_position bigint NOT NULL,
        updated_at      timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    id: "eventstore/0003_consumers",
    sql: `
      CREATE TABLE processed_events (
        consumer     text NOT NULL,
        event_id     uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      );
      CREATE TABLE consumer_checkpoints (
        consumer        text PRIMARY KEY,
        transaction_id  xid8 NOT NULL,
        global_position bigint NOT NULL,
        updated_at      timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE dead_letters (
        id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        consumer        text NOT NULL,
        stream          text NOT NULL,
        stream_sequence bigint NOT NULL,
        event_id        uuid,
        subject         text NOT NULL,
        deliveries      integer NOT NULL,
        error           text NOT NULL,
        payload         bytea NOT NULL,
        headers         jsonb NOT NULL,
        recorded_at     timestamptz NOT NULL DEFAULT now(),
        -- A crash between this insert and term() redelivers the message; record it once.
        UNIQUE (consumer, stream, stream_sequence)
      );`,
  },
  {
    id: "eventstore/0004_snapshots",
    sql: `
      -- A decider's state after a stream's first stream_version events (handleCommand.ts): a
      -- cache, so a command on a long stream reads only what follows it. Deleting any row is
      -- always safe; events stay the only truth.
      CREATE TABLE snapshots (
        stream_id      text PRIMARY KEY,
        tag            text NOT NULL,
        stream_version integer NOT NULL CHECK (stream_version > 0),
        state          jsonb NOT NULL,
        taken_at       timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    id: "eventstore/0005_applied_requests",
    sql: `
      -- The Idempotency-Keys of requests this service applied (requests/appliedRequests.ts):
      -- inserted in the transaction of the command's events, so a second execution of the
      -- same request meets the row and appends nothing; reply is the RPC's answer, stored
      -- once the handler returned, for a request the gateway forwards again.
      CREATE TABLE applied_requests (
        scope       text NOT NULL,
        key         text NOT NULL,
        method      text NOT NULL,
        fingerprint text NOT NULL,
        applied_at  timestamptz NOT NULL,
        expires_at  timestamptz NOT NULL,
        reply       bytea,
        PRIMARY KEY (scope, key, method)
      );
      CREATE INDEX applied_requests_expiry_idx ON applied_requests (expires_at);`,
  },
  {
    id: "eventstore/0006_event_compression",
    sql: `
      -- An event's data over ~2 KB is compressed: lz4 writes a 70 KB bulk event ~1 ms faster
      -- than the default pglz at the same size (rows written before keep pglz; both read
      -- back). A server built without lz4 keeps pglz.
      DO $$
      BEGIN
        ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN NULL;
      END $$;`,
  },
  {
    id: "eventstore/0007_refuse",
    sql: `
      -- A statement's own refusal, for a check made in SQL rather than on the statement's
      -- answer: a command whose COMMIT goes out behind its last statement (handleCommand.ts)
      -- has no later moment to refuse in. Raises \`state\` (a SQLSTATE of the caller's) with
      -- \`message\`; never returns.
      CREATE FUNCTION refuse(state text, message text) RETURNS int LANGUAGE plpgsql AS $fn$
      BEGIN
        RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message;
      END $fn$;`,
  },
];
