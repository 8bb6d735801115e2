import pg from "pg";
import type { Logger } from "./logger.ts";

export interface PoolOptions {
  url: string;
  /** The service's own schema, first on the search path. */
  schema: string;
  max?: number;
  /** Act as this role (SET ROLE at connect): the migration role migrating a service's schema. */
  role?: string;
  logger: Logger;
}

/** A service's connection pool. */
export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    options: `-c search_path=${opts.schema}${opts.role ? ` -c role=${opts.role}` : ""}`,
    max: opts.max ?? 20,
  });
  // Postgres closing an idle connection (restart, failover, an admin command) must not crash
  // the process: without a listener the pool's "error" event is thrown. The pool replaces
  // the connection on next use.
  pool.on("error", (err) =>
    opts.logger.warn("idle database connection lost", { error: err.message }),
  );
  return pool;
}
