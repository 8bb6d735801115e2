import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { checkout } from "@argus/platform";
import {
  quoteSchema,
  storeMigrations,
  tracedQuery,
  type Logger,
  type Migration,
} from "@argus/eventstore";

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  readonly code = "MIGRATION_FAILED";
}

export interface MigrateOptions {
  schema: string;
  migrations: readonly Migration[];
  logger?: Logger;
}

const reservedPrefix = "eventstore/";

/**
 * Applies the store's tables, then `migrations` in order, each once, each in its own
 * transaction with `search_path` set to the schema. A session advisory lock per schema makes
 * concurrent starts (replicas, a migrations Job) wait for each other instead of racing.
 * An applied migration whose text changed is an error: migrations are never rewritten.
 */
export async function migrate(pool: Pool, options: MigrateOptions): Promise<{ applied: string[] }> {
  const schema = quoteSchema(options.schema);
  const all = [...storeMigrations, ...checkIds(options.migrations)];
  const client = await checkout(pool);
  let failed: Error | undefined;
  try {
    const lockKey = `argus.migrate:${options.schema}`;
    await tracedQuery(client, "migrate.lock", "SELECT pg_advisory_lock(hashtextextended($1, 0))", [
      lockKey,
    ]);
    try {
      await tracedQuery(client, "migrate.bootstrap", bootstrapSql(schema));
      const applied = await appliedChecksums(client, schema);
      const ran: string[] = [];
      for (const migration of all) {
        const checksum = sha256(migration.sql);
        const previous = applied.get(migration.id);
        if (previous === checksum) continue;
        if (previous !== undefined) {
          throw new MigrationError(
            `migration ${migration.id} in ${options.schema} changed after it was applied`,
          );
        }
        await applyOne(client, schema, migration, checksum);
        options.logger?.info("migration applied", {
          schema: options.schema,
          migration: migration.id,
        });
        ran.push(migration.id);
      }
      return { applied: ran };
    } finally {
      // If unlocking fails the client is destroyed below, which ends the session and its lock.
      await client
        .query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey])
        .catch((err: Error) => (failed ??= err));
    }
  } catch (err) {
    failed = err as Error;
    throw err;
  } finally {
    // A client that failed mid-transaction is discarded rather than returned to the pool.
    client.release(failed);
  }
}

function checkIds(migrations: readonly Migration[]): readonly Migration[] {
  const seen = new Set<string>();
  for (const { id } of migrations) {
    if (id.startsWith(reservedPrefix))
      throw new MigrationError(`migration id ${id} uses the reserved prefix ${reservedPrefix}`);
    if (seen.has(id)) throw new MigrationError(`migration id ${id} appears twice`);
    seen.add(id);
  }
  return migrations;
}

function bootstrapSql(schema: string): string {
  return `
    -- Only a missing schema is created: CREATE SCHEMA IF NOT EXISTS needs CREATE on the
    -- database even when the schema exists, a right a service's own role does not hold.
    DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '${schema.slice(1, -1)}') THEN
        CREATE SCHEMA ${schema};
      END IF;
    END $$;
    CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
      id         text PRIMARY KEY,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    );`;
}

async function appliedChecksums(client: PoolClient, schema: string): Promise<Map<string, string>> {
  const { rows } = await tracedQuery<{ id: string; checksum: string }>(
    client,
    "migrate.applied",
    `SELECT id, checksum FROM ${schema}.schema_migrations`,
  );
  return new Map(rows.map((row) => [row.id, row.checksum]));
}

async function applyOne(
  client: PoolClient,
  schema: string,
  migration: Migration,
  checksum: string,
) {
  await tracedQuery(client, "migrate.begin", "BEGIN");
  try {
    await tracedQuery(client, "migrate.search_path", `SET LOCAL search_path TO ${schema}, public`);
    await tracedQuery(client, `migrate ${migration.id}`, migration.sql);
    await tracedQuery(
      client,
      "migrate.record",
      `INSERT INTO ${schema}.schema_migrations (id, checksum) VALUES ($1, $2)`,
      [migration.id, checksum],
    );
    await tracedQuery(client, "migrate.commit", "COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw new MigrationError(`migration ${migration.id} failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
