import { createServer, type RequestListener } from "node:http";
import pg from "pg";
import { startService, type RunningService, type StartOptions } from "@argus/service-host";
import { createLogger, uuidv7 } from "@argus/platform";
import {
  createTestDatabase,
  listenLocal,
  testCallKeys,
  testInfra,
  uniqueName,
} from "@argus/testkit";
import { webhookDispatcher } from "../src/service.ts";

/**
 * Dispatcher replicas on one fresh database, delivering to a receiver on loopback; a pool on the
 * dispatcher's schema, to write the rows the API and the consumer would have made (both tested
 * end to end elsewhere) and to look behind it.
 */
export interface DispatcherUnderTest {
  pool: pg.Pool;
  /** The receiver's URL, for webhooks. */
  url: string;
  /** One more replica; `options` may pin its clock. Stopped by `stop`. */
  replica(name: string, options?: StartOptions): Promise<RunningService>;
  /** A BEARER webhook named `name` to the receiver, in a new account and organization. */
  insertWebhook(id: string, name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startDispatcherUnderTest(
  receive: RequestListener,
): Promise<DispatcherUnderTest> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  const keys = testCallKeys();
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    ARGUS_EVENTS_STREAM: uniqueName("WH"),
    ARGUS_SUBJECT_ROOT: uniqueName("wh"),
    WEBHOOK_DISPATCHER_GRPC_PORT: "0",
    WEBHOOK_DISPATCHER_PROBE_PORT: "0",
    // Neither is called: deliveries need no look-ups.
    IDENTITY_GRPC_URL: "127.0.0.1:1",
    CATALOG_GRPC_URL: "127.0.0.1:1",
    ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true",
    ...keys.env("webhook-dispatcher"),
  };
  const server = createServer(receive);
  const url = `http://127.0.0.1:${await listenLocal(server)}/hook`;
  const pool = new pg.Pool({
    connectionString: db.url,
    options: "-c search_path=webhooks",
    max: 2,
  });
  const replicas: RunningService[] = [];
  return {
    pool,
    url,
    async replica(name, options) {
      const logger = createLogger({ service: name, level: "warn" });
      const replica = await startService(webhookDispatcher, env, logger, options);
      replicas.push(replica);
      return replica;
    },
    async insertWebhook(id, name) {
      await pool.query(
        `insert into webhooks (id, account_id, organization_id, name, description, url, auth_type,
           signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id, created_at,
           updated_at)
         values ($1, $2, $3, $4, '', $5, 'BEARER', '', 5000, '{}', false, '', now(), now())`,
        [id, uuidv7(), uuidv7(), name, url],
      );
    },
    async stop() {
      await pool.end();
      for (const r of replicas) await r.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.drop();
    },
  };
}
