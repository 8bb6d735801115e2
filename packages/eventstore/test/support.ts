import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import {
  createTestDatabase,
  spawnProcess,
  testInfra,
  uniqueName,
  type SpawnedProcess,
} from "@argus/testkit";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import {
  createEventStore,
  createRelay,
  defaultSubject,
  ensureConsumer,
  ensureStream,
  type Logger,
} from "../src/index.ts";
import { quoteSchema } from "../src/schema/schemaName.ts";
import { storeMigrations } from "../src/schema/storeMigrations.ts";

export const quietLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Collects log lines so a test can assert on what was said. */
export function recordingLogger(): Logger & {
  lines: { level: string; msg: string; fields?: Record<string, unknown> }[];
} {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export interface TestEnv {
  url: string;
  pool: pg.Pool;
  natsUrl: string;
  nats(): Promise<NatsConnection>;
  close(): Promise<void>;
}

/** One database per test file, a pool on it, and NATS connections that are all closed at the end. */
async function testEnv(poolSize = 20): Promise<TestEnv> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const pool = new pg.Pool({ connectionString: db.url, max: poolSize });
  pool.on("error", () => {});
  const connections: NatsConnection[] = [];
  return {
    url: db.url,
    pool,
    natsUrl: infra.natsUrl,
    async nats() {
      const nc = await connect({ servers: infra.natsUrl, name: uniqueName("eventstore-test") });
      connections.push(nc);
      return nc;
    },
    async close() {
      await Promise.all(connections.filter((nc) => !nc.isClosed()).map((nc) => nc.close()));
      await pool.end();
      await db.drop();
    },
  };
}

/**
 * This file's environment and a NATS connection on it: opened before its tests, closed after
 * them once everything they `started` (relays, consumers) has stopped.
 */
interface FileEnv {
  readonly env: TestEnv;
  readonly nc: NatsConnection;
  started<T extends { stop(): Promise<unknown> }>(running: T): T;
}

export function fileEnv(poolSize?: number): FileEnv {
  let env: TestEnv | undefined;
  let nc: NatsConnection | undefined;
  const running: { stop(): Promise<unknown> }[] = [];
  beforeAll(async () => {
    env = await testEnv(poolSize);
    nc = await env.nats();
  });
  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await env?.close();
  });
  return {
    get env() {
      if (!env) throw new Error("the test environment is opened before the file's tests");
      return env;
    },
    get nc() {
      if (!nc) throw new Error("the test environment is opened before the file's tests");
      return nc;
    },
    started(r) {
      running.push(r);
      return r;
    },
  };
}

/**
 * This file's environment with one schema of the store's tables and `sql` (the tests' own
 * tables), made before its tests; the environment is closed after them.
 */
export function fileSchema(
  prefix: string,
  ...sql: string[]
): { readonly env: TestEnv; schema: string } {
  const schema = schemaName(prefix);
  let env: TestEnv | undefined;
  beforeAll(async () => {
    env = await testEnv();
    await createSchema(env.pool, schema, ...sql);
  });
  afterAll(() => env?.close());
  return {
    get env() {
      if (!env) throw new Error("the test environment is opened before the file's tests");
      return env;
    },
    schema,
  };
}

/**
 * A new schema with the store's tables, then `sql` (a test's own tables), in one transaction:
 * what the service host's migrate applies, without its bookkeeping, so these tests need no host.
 */
export async function createSchema(pool: pg.Pool, schema: string, ...sql: string[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(`CREATE SCHEMA ${quoteSchema(schema)}`);
    await client.query(`SET LOCAL search_path TO ${quoteSchema(schema)}, public`);
    for (const text of [...storeMigrations.map((m) => m.sql), ...sql]) await client.query(text);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

export function schemaName(prefix: string): string {
  return uniqueName(prefix).toLowerCase().replace(/-/g, "_");
}

export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The way a service's events go, up to a consumer: a store on `source` whose relay (started,
 * and stopped with the file) publishes into a fresh stream, and a durable consumer on that
 * stream, not running yet.
 */
export async function liveStream(
  { env, nc, started }: FileEnv,
  source: string,
  consumer: { maxDeliver: number; ackWaitMs: number },
) {
  const root = uniqueName("t");
  const stream = uniqueName("STREAM");
  const durable = uniqueName("durable");
  await ensureStream(nc, { name: stream, subjects: [`${root}.>`] });
  await ensureConsumer(nc, { stream, durable, filterSubjects: [`${root}.>`], ...consumer });
  const relay = createRelay({
    pool: env.pool,
    schema: source,
    nc,
    subject: defaultSubject("svc", root),
    logger: quietLogger,
  });
  started(relay);
  const store = createEventStore({ pool: env.pool, schema: source, onCommit: () => relay.wake() });
  await relay.start();
  return { root, stream, durable, store };
}

/**
 * A fixture (test/fixtures/*.ts) in a process of its own, with `env` and the ready file it
 * writes once it is ready (see fixtureProcess.ts): answered when it has written it, and killed
 * at the end of the file whatever the test left running.
 */
export async function spawnFixture(
  file: FileEnv,
  name: string,
  fixture: string,
  env: Record<string, string>,
): Promise<SpawnedProcess> {
  const readyFile = join(tmpdir(), uniqueName(`${name}-ready`));
  const child = await spawnProcess({
    name,
    command: process.execPath,
    args: [fixture],
    env: { ...env, READY_FILE: readyFile },
    readyWhen: async () => existsSync(readyFile),
  });
  rmSync(readyFile, { force: true });
  file.started({ stop: () => child.stop("SIGKILL") });
  return child;
}
