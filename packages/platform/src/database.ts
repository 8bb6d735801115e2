import type { Writable } from "node:stream";
import pg from "pg";
import type { Logger } from "./logger.ts";

// The only module that makes pools and clients or checks a connection out of a pool: the lint
// rule `argus/pg-connections` (eslint.config.js) refuses `new pg.Pool`, `new pg.Client` and a
// bare `.connect()` anywhere else in the source, so none is made without an error listener.

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
    // A database that does not answer (stopped, failing over) fails a checkout after this long
    // instead of queueing callers until their deadlines: they get 503 and may retry.
    connectionTimeoutMillis: 5_000,
  });
  // Postgres closing an idle connection (restart, failover, an admin command) must not crash
  // the process: without a listener the pool's "error" event is thrown. The pool replaces
  // the connection on next use.
  pool.on("error", (err) =>
    opts.logger.warn("idle database connection lost", { error: err.message }),
  );
  return pool;
}

/**
 * A connection of `pool` for work that needs one session (a transaction, a session lock,
 * LISTEN, COPY). pg-pool takes its own error listener off a client it hands out, and a client
 * whose server goes away (a restart, a failover) emits 'error', which kills the process when
 * nobody listens. The client returned listens from checkout on: `onError` hears of a broken
 * connection (the statement in flight fails with the same error anyway), and `release()` of a
 * client that broke destroys it instead of pooling it.
 */
export async function checkout(
  pool: pg.Pool,
  onError?: (err: Error) => void,
  options: { pipelined?: boolean } = {},
): Promise<pg.PoolClient> {
  const client = await pool.connect();
  // Pipelined until released: a statement goes out while the ones before it are still being
  // answered (each is still answered, and fails or not, on its own). Only for the holder's own
  // statements: pg refuses COPY and cursors on a pipelined connection, so the pool's are not.
  if (options.pipelined) pipeline(client, true);
  let broken: Error | undefined;
  const listener = (err: Error): void => {
    broken ??= err;
    onError?.(err);
  };
  client.on("error", listener);
  const release = client.release.bind(client);
  client.release = (err?: Error | boolean) => {
    // The listener stays on a connection that is destroyed: a dying one may still report.
    if (err === undefined && broken === undefined) client.off("error", listener);
    if (options.pipelined) pipeline(client, false);
    release(err ?? broken);
  };
  return client;
}

// pg reads the flag each time it sends; it is switched only while nothing is in flight (just
// checked out, or being released after the holder's last statement answered).
const pipeline = (client: pg.PoolClient, on: boolean): void => {
  (client as { pipeline: boolean }).pipeline = on;
};

/**
 * Runs `send`, and writes what it sends on `client` (a pipelined connection's statements, sent
 * as they are made) to the server in one system call: pg writes each statement on its own, and
 * a command's append, projection and COMMIT were three writes, each waking the server.
 */
export function inOneWrite<T>(client: pg.ClientBase, send: () => T): T {
  const socket = (client as { connection?: { stream?: Partial<Writable> } }).connection?.stream;
  socket?.cork?.();
  try {
    return send();
  } finally {
    socket?.uncork?.();
  }
}

/**
 * A client of its own, outside any pool (management steps, readiness probes), connected and
 * with an error listener: its server going away fails the statement in flight instead of
 * killing the process.
 */
export async function connectClient(
  config: pg.ClientConfig,
  onError?: (err: Error) => void,
): Promise<pg.Client> {
  const client = new pg.Client(config);
  client.on("error", (err: Error) => onError?.(err));
  await client.connect();
  return client;
}

/** A pool outside a service (scripts, test harnesses), with the idle listener every pool needs. */
export function plainPool(config: pg.PoolConfig, onError?: (err: Error) => void): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", (err: Error) => onError?.(err));
  return pool;
}
