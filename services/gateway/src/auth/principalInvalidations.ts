import { setTimeout as sleep } from "node:timers/promises";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  decodeInvalidation,
  encodeAck,
  type PrincipalInvalidation,
} from "@argus/contracts/principalInvalidation";
import { natsReconnectOptions, type Logger } from "@argus/platform";

export interface InvalidationListenerOptions {
  /** Every NATS server's URL. */
  servers: string[];
  user: { user: string; pass: string } | undefined;
  subject: string;
  gatewayId: string;
  /** Drops what the invalidation names; the acknowledgement is sent when it returns. */
  onInvalidation: (m: PrincipalInvalidation) => void;
  logger: Logger;
}

export interface InvalidationListener {
  /** Whether invalidations reach this gateway now (subscribed, and the server has it). */
  live(): boolean;
  close(): Promise<void>;
}

// A silent partition (no FIN, no RST) is noticed after about interval × (maxPingOut + 1).
const PING_INTERVAL_MS = 5_000;
const MAX_PINGS_OUT = 2;
const RETRY_MS = 2_000;

/**
 * Receives invalidations over core NATS and acknowledges each once the entries are gone.
 * Connects in the background, for as long as the gateway runs: the gateway serves (uncached)
 * without NATS, and caches again once it is back and its lease is renewed.
 */
export function listenForInvalidations(o: InvalidationListenerOptions): InvalidationListener {
  let nc: NatsConnection | undefined;
  let live = false;
  const closing = new AbortController();
  const log = o.logger.child({ gateway_id: o.gatewayId });

  const subscribe = async (c: NatsConnection) => {
    c.subscribe(o.subject, {
      callback: (err, msg) => {
        const m = err ? undefined : decodeInvalidation(msg.data);
        if (!m) return;
        o.onInvalidation(m);
        if (msg.reply) msg.respond(encodeAck({ gatewayId: o.gatewayId }));
      },
    });
    // The server has the subscription once a ping round trip after it came back.
    await c.flush();
    live = true;
  };

  const watch = async (c: NatsConnection) => {
    for await (const s of c.status()) {
      if (s.type === "disconnect" || s.type === "staleConnection") {
        if (live) log.warn("principal invalidations cut off (NATS disconnected)");
        live = false;
      } else if (s.type === "reconnect") {
        // The client subscribes again on reconnecting; a flush says the server has it.
        const flushed = await c.flush().then(
          () => true,
          () => false,
        );
        if (flushed) log.info("principal invalidations reach this gateway again");
        live = flushed;
      }
    }
  };

  const run = async () => {
    let reported = false;
    while (!closing.signal.aborted) {
      try {
        const c = await connect({
          servers: o.servers,
          name: `argus-gateway-${o.gatewayId}`,
          ...(o.user ?? {}),
          // Forever, with a jittered wait growing with the outage (as every Argus process).
          ...natsReconnectOptions(),
          pingInterval: PING_INTERVAL_MS,
          maxPingOut: MAX_PINGS_OUT,
        });
        nc = c;
        if (closing.signal.aborted) await c.close();
        void watch(c);
        await subscribe(c);
        log.info("listening for principal invalidations", { subject: o.subject });
        reported = false;
        await c.closed();
      } catch (err) {
        if (!reported)
          log.warn("no NATS for principal invalidations; serving uncached, retrying", {
            error: (err as Error).message,
          });
        reported = true;
      }
      live = false;
      nc = undefined;
      await sleep(RETRY_MS, undefined, { signal: closing.signal }).catch(() => undefined);
    }
  };
  const running = run();

  return {
    live: () => live,
    async close() {
      closing.abort();
      live = false;
      await nc?.close().catch(() => undefined);
      await running;
    },
  };
}
