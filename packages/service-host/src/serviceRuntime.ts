import type { Pool } from "pg";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { setTimeout as sleep } from "node:timers/promises";
import { createPool, inboxPrefixOf, natsReconnectOptions, untilReachable } from "@argus/platform";
import {
  createEventStore,
  createRelay,
  defaultSubject,
  runConsumer,
  type ConsumerRunner,
  type EventHandler,
  type EventStore,
  type Logger,
  type Migration,
} from "@argus/eventstore";
import { migrate } from "./migrations/migrate.ts";
import { MAX_DELIVER } from "./provisioning/provisionMessaging.ts";

export interface ServiceRuntimeOptions {
  /** Subject token of the service: events go out as `<root>.<service>.<aggregate>.<Type>`. */
  service: string;
  schema: string;
  migrations: readonly Migration[];
  databaseUrl: string;
  /** One NATS server's URL, or every server's. */
  natsUrl: string | string[];
  /** The service's own NATS identity; absent on a server without authorization (tests). */
  natsUser?: { user: string; pass: string } | undefined;
  stream: string;
  subjectRoot: string;
  logger: Logger & Parameters<typeof createPool>[0]["logger"];
}

export interface ServiceRuntime {
  pool: Pool;
  nc: NatsConnection;
  store: EventStore;
  /** Readiness: the database answers and NATS is connected now (not merely reconnecting). */
  ready(): Promise<boolean>;
  /** A durable consumer of this stream (made by the management step), run in this process. */
  consume(o: DurableConsumerOptions): Promise<ConsumerRunner>;
  /** Stops consumers and the relay, drains NATS, closes the pool. */
  stop(): Promise<void>;
}

export interface DurableConsumerOptions {
  durable: string;
  /** One subject: nats-server 2.9 takes one filter subject per consumer. */
  filterSubject: string;
  concurrency: number;
  handler: EventHandler;
  /** The event types the handler acts on, when it acts on few: others are acked unhandled. */
  types?: readonly string[];
  /** The handler is one statement a redelivery repeats harmlessly: no processed marker. */
  idempotent?: boolean;
  /** The handler takes the data's text as it came, and parses it only when it reads `data`. */
  lazyData?: boolean;
  nakBackoff?: { baseMs: number; maxMs: number };
}

/**
 * What every event-sourced service runs on: its pool and schema migrations, the events stream,
 * an event store whose commits wake the outbox relay at once, and the relay itself.
 */
export async function startServiceRuntime(o: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const pool = createPool({ url: o.databaseUrl, schema: o.schema, logger: o.logger });
  // Started beside its database and NATS (pods, containers), it waits for them, not exits.
  const wait = { logger: o.logger };
  await untilReachable("postgres", () => pool.query("select 1"), wait);
  await migrate(pool, { schema: o.schema, migrations: o.migrations });
  const nc = await untilReachable(
    "nats",
    () =>
      connect({
        servers: o.natsUrl,
        name: `argus-${o.service}`,
        inboxPrefix: inboxPrefixOf(o.service),
        ...(o.natsUser ?? {}),
        // Through any outage, however long; the relay and the consumers resume on reconnect.
        ...natsReconnectOptions(),
        // A silent partition (no FIN) is noticed within ~30 s, not the default 4-6 minutes.
        pingInterval: 10_000,
        maxPingOut: 2,
        // Every JetStream publish is a request, and with async traces each made an Error (a
        // stack captured) up front, to be thrown only if the request failed: ~1 % of a busy
        // service's CPU. A failed request's message still names what failed.
        noAsyncTraces: true,
      }),
    wait,
  ).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  let natsConnected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "staleConnection") {
        if (natsConnected) o.logger.warn("NATS connection lost; reconnecting", { status: s.type });
        natsConnected = false;
      } else if (s.type === "reconnect") {
        natsConnected = true;
        o.logger.info("NATS connection back", { server: s.server });
      }
    }
  })();
  let wake = (): void => undefined;
  const store = createEventStore({
    pool,
    schema: o.schema,
    onCommit: () => wake(),
    logger: o.logger,
  });
  const relay = createRelay({
    pool,
    schema: o.schema,
    nc,
    subject: defaultSubject(o.service, o.subjectRoot),
    logger: o.logger,
    // 1 ms: the request that committed answers before its events are read and published.
    wakeDelayMs: 1,
  });
  wake = () => relay.wake();
  await relay.start();
  const consumers: ConsumerRunner[] = [];
  return {
    pool,
    nc,
    store,
    async ready() {
      await pool.query("select 1");
      return natsConnected && !nc.isClosed();
    },
    async consume(c) {
      const runner = await runConsumer({
        nc,
        pool,
        schema: o.schema,
        stream: o.stream,
        durable: c.durable,
        concurrency: c.concurrency,
        maxDeliver: MAX_DELIVER,
        logger: o.logger,
        handler: c.handler,
        ...(c.types ? { types: new Set(c.types) } : {}),
        ...(c.idempotent ? { idempotent: true } : {}),
        ...(c.lazyData ? { lazyData: true } : {}),
        ...(c.nakBackoff ? { nakBackoff: c.nakBackoff } : {}),
      });
      consumers.push(runner);
      return runner;
    },
    async stop() {
      await relay.stop();
      for (const c of consumers) await c.stop();
      // Draining waits for the server; during an outage the process stops all the same.
      const drained = await Promise.race([
        nc.drain().then(
          () => true,
          () => false,
        ),
        sleep(5_000, false),
      ]);
      if (!drained) await nc.close().catch(() => undefined);
      await pool.end();
    },
  };
}
