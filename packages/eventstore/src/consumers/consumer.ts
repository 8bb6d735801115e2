import { ROOT_CONTEXT, SpanKind, SpanStatusCode, propagation, type Span } from "@opentelemetry/api";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import { millis, type NatsConnection } from "@nats-io/nats-core";
import type { Pool } from "pg";
import { DomainError, isDependencyUnavailable } from "@argus/platform";
import { backoffDelay, type BackoffOptions } from "../backoff.ts";
import { recordDeadLetter } from "./deadLetter.ts";
import { decodeEvent, decodeEventLazily } from "../messages/eventCodec.ts";
import { mayCarryType } from "../messages/subject.ts";
import { createKeyedQueue } from "./keyedQueue.ts";
import type { Logger } from "../logger.ts";
import { processIdempotent, processOnce, type EventHandler } from "./processOnce.ts";
import { quoteSchema } from "../schema/schemaName.ts";
import { natsHeaderGetter } from "../messages/traceCarriers.ts";
import { tracer } from "../schema/tracedQuery.ts";
import type { ConsumedEvent } from "../types.ts";

export interface ConsumerOptions {
  nc: NatsConnection;
  pool: Pool;
  /** The consumer's own schema, holding its processed events and dead letters. */
  schema: string;
  stream: string;
  /** A durable made beforehand by ensureConsumer; also the consumer's name in Postgres. */
  durable: string;
  /** Messages handled at once; events of one stream are still handled one after another. */
  concurrency: number;
  /** The consumer's max_deliver: the delivery that fails at this count is dead-lettered. */
  maxDeliver: number;
  handler: EventHandler;
  /**
   * The event types the handler acts on, when it acts on few: any other is acked as it comes,
   * with no transaction (an event that changes nothing has nothing to mark processed), and
   * undecoded when its subject (relay's `defaultSubject`) already says its type.
   */
  types?: ReadonlySet<string>;
  /**
   * The handler is one statement that a redelivery repeats harmlessly (keyed by the event id):
   * it runs without the processed marker and its transaction (processIdempotent).
   */
  idempotent?: boolean;
  /**
   * The handler reads the event's data only at times, or takes its text as it came
   * (`ConsumedEvent.dataText`): it is parsed when first read (`decodeEventLazily`).
   */
  lazyData?: boolean;
  logger: Logger;
  /** Redelivery delay after a failed attempt; default 1 s doubling to 60 s, jittered. */
  nakBackoff?: BackoffOptions;
  /**
   * How long one delivery is held and tried again while its dependencies are unavailable
   * (the database, a peer service), before that failure spends a delivery; default 5 minutes.
   */
  holdWhileUnavailableMs?: number;
}

/**
 * A failure that says nothing about the event: the database or a peer service is away. Naking
 * it would spend one of the few deliveries before the dead-letter on an outage.
 */
const unavailable = (err: unknown): boolean =>
  isDependencyUnavailable(err) ||
  (err instanceof DomainError && err.type === "service-unavailable");

export interface ConsumerRunner {
  /** Stops pulling, finishes (and acks) the messages in hand, flushes the acks. */
  stop(): Promise<void>;
}

const PULL_EXPIRES_MS = 5_000;

export async function runConsumer(options: ConsumerOptions): Promise<ConsumerRunner> {
  const { nc, pool, schema, durable, concurrency, maxDeliver, handler, logger } = options;
  const wanted = options.types && mayCarryType(options.types);
  quoteSchema(schema);
  const nakBackoff = options.nakBackoff ?? { baseMs: 1000, maxMs: 60_000 };
  const consumer = await jetstream(nc).consumers.get(options.stream, durable);
  const { config } = await consumer.info(true);
  const ackWaitMs = millis(config.ack_wait ?? 30e9);
  if (config.max_deliver !== maxDeliver) {
    logger.warn("maxDeliver differs from the consumer's max_deliver", {
      consumer: durable,
      maxDeliver,
      serverMaxDeliver: config.max_deliver,
    });
  }
  const holdMs = options.holdWhileUnavailableMs ?? 300_000;
  const inFlight = new Set<Promise<void>>();
  const inStreamOrder = createKeyedQueue();
  const stopping = new AbortController();

  /** Runs the handler once, trying again in place while its dependencies are away. */
  async function processHeld(event: ConsumedEvent): Promise<"processed" | "duplicate"> {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return options.idempotent
          ? await processIdempotent(pool, event, handler)
          : await processOnce(pool, schema, durable, event, handler);
      } catch (err) {
        // A commit whose outcome is unknown is safe to run again too: the processed marker
        // commits with the effect, so a second run finds it.
        if (!unavailable(err) || stopping.signal.aborted) throw err;
        if (performance.now() - started > holdMs) throw err;
        if (attempt === 1)
          logger.warn("event handler's dependency unavailable; holding the event and retrying", {
            consumer: durable,
            eventId: event.eventId,
            err: (err as Error).message,
          });
        // The message's heartbeat (msg.working) keeps it ours meanwhile.
        await sleep(
          Math.max(100, backoffDelay(attempt, { baseMs: 250, maxMs: 5_000 })),
          undefined,
          {
            signal: stopping.signal,
          },
        ).catch(() => undefined);
      }
    }
  }

  async function settle(msg: JsMsg, event: ConsumedEvent, span: Span): Promise<void> {
    let outcome: "processed" | "duplicate";
    try {
      outcome = await processHeld(event);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      if (stopping.signal.aborted && unavailable(err)) return; // redelivered after the restart
      await fail(msg, err as Error, event.eventId);
      return;
    }
    if (outcome === "duplicate") {
      span.setAttribute("argus.redelivery_ignored", true);
      logger.debug("redelivered event was already processed", {
        consumer: durable,
        eventId: event.eventId,
      });
    }
    // Outside the try: an ack that cannot be sent is not a failed delivery; the redelivery
    // it causes finds the processed marker.
    msg.ack();
  }

  async function fail(msg: JsMsg, err: Error, eventId: string | undefined): Promise<void> {
    const deliveries = msg.info.deliveryCount;
    const fields = {
      consumer: durable,
      eventId,
      subject: msg.subject,
      deliveries,
      err: err.message,
    };
    if (deliveries < maxDeliver && eventId !== undefined) {
      logger.warn("event handler failed; will retry", fields);
      msg.nak(backoffDelay(deliveries, nakBackoff));
      return;
    }
    logger.error("event dead-lettered", fields);
    await recordDeadLetter(pool, schema, durable, msg, err.message);
    // No reason text: nats-server 2.9 only recognises a bare +TERM and ignores "+TERM <reason>".
    msg.term();
  }

  function handle(msg: JsMsg): Promise<void> {
    const parent = propagation.extract(ROOT_CONTEXT, msg.headers, natsHeaderGetter);
    const attributes = {
      "messaging.system": "nats",
      "messaging.operation.type": "process",
      "messaging.destination.name": msg.subject,
      "messaging.consumer.group.name": durable,
    };
    return tracer.startActiveSpan(
      `process ${msg.subject}`,
      { kind: SpanKind.CONSUMER, attributes },
      parent,
      async (span) => {
        // Tells the server a slow handler is still at work, so it does not redeliver meanwhile.
        const heartbeat = setInterval(() => msg.working(), Math.max(500, ackWaitMs / 2));
        try {
          if (wanted && !wanted(msg.subject)) {
            msg.ack();
            return;
          }
          let event: ConsumedEvent;
          try {
            event = options.lazyData ? decodeEventLazily(msg.data) : decodeEvent(msg.data);
          } catch (err) {
            await fail(msg, err as Error, undefined);
            return;
          }
          span.setAttribute("messaging.message.id", event.eventId);
          if (options.types && !options.types.has(event.type)) {
            msg.ack();
            return;
          }
          await inStreamOrder(event.streamId, () => settle(msg, event, span));
        } catch (err) {
          // Only the NATS or Postgres calls around the handler land here (e.g. a closed connection).
          logger.error("could not settle message", {
            consumer: durable,
            subject: msg.subject,
            err: (err as Error).message,
          });
        } finally {
          clearInterval(heartbeat);
          span.end();
        }
      },
    );
  }

  // nats.js resumes a consume() across reconnects by itself; whatever still ends it (a
  // connection closed, a consumer deleted and made again, a server refusing the pull) does not
  // end this runner: it pulls again, backing off, until stop().
  let messages: ConsumerMessages | undefined;
  const pulling = (async () => {
    for (let failures = 0; !stopping.signal.aborted;) {
      try {
        // Pulls that expire after 5 s, with heartbeats every 2.5 s: when a JetStream cluster moves
        // the consumer's leader (a server lost), the pending pull dies with it unannounced (nats-server
        // 2.9), and the client pulls again after two missed heartbeats — 5 s, not the 30 s of the
        // default 30 s pulls. Idle, that is one pull request per 5 s per consumer.
        messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
        if (failures > 0) logger.info("consumer pulling again", { consumer: durable });
        for await (const msg of messages) {
          failures = 0;
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          const task = handle(msg).finally(() => inFlight.delete(task));
          inFlight.add(task);
        }
        if (stopping.signal.aborted) break;
        logger.warn("consumer stopped pulling; pulling again", { consumer: durable });
      } catch (err) {
        if (stopping.signal.aborted) break;
        logger.error("consumer stopped pulling; pulling again", {
          consumer: durable,
          err: (err as Error).message,
        });
      }
      failures++;
      await sleep(
        Math.max(250, backoffDelay(failures, { baseMs: 500, maxMs: 10_000 })),
        undefined,
        {
          signal: stopping.signal,
        },
      ).catch(() => undefined);
    }
  })();

  return {
    async stop() {
      stopping.abort();
      await messages?.close().catch(() => {});
      await pulling;
      await Promise.allSettled(inFlight);
      // The acks of the last messages; an outage does not hold the stop up.
      if (!nc.isClosed()) await Promise.race([nc.flush().catch(() => {}), sleep(2_000)]);
    },
  };
}
