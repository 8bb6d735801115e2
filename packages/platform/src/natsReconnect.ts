/**
 * How every long-lived NATS connection of Argus rides out an outage (services' runtimes, the
 * gateway's invalidation listener): it reconnects for as long as the process runs — nats.js
 * gives up after 10 attempts 2 s apart by default, which cut every service off for good after
 * a 20 s outage (issue 29) — and keeps every server of its list, since a server is dropped
 * from the list only when its attempts run out. The wait between two attempts on one server
 * grows with the outage (a quarter of its length so far) from `minMs` to `maxMs`, each drawn
 * between half and all of that, so a fleet that lost the server together does not knock on it
 * in step when it returns.
 */
export interface NatsReconnectTiming {
  minMs: number;
  maxMs: number;
}

const NATS_RECONNECT: NatsReconnectTiming = { minMs: 250, maxMs: 4_000 };

/**
 * A reconnect delay handler for nats.js (`reconnectDelayHandler`): called before each try of
 * the dial loop while the connection is down, never while it is up, so a pause between calls
 * longer than any wait it hands out means a new outage began.
 */
export function reconnectDelay(
  timing: NatsReconnectTiming = NATS_RECONNECT,
  now: () => number = Date.now,
  random: () => number = Math.random,
): () => number {
  let outageStart = 0;
  let lastCall = -Infinity;
  return () => {
    const t = now();
    if (t - lastCall > 2 * timing.maxMs) outageStart = t;
    lastCall = t;
    const ceiling = Math.min(timing.maxMs, Math.max(timing.minMs, (t - outageStart) / 4));
    return Math.round(ceiling * (0.5 + random() / 2));
  };
}

/** The connection options that say so, spread into nats.js's `connect`. */
export function natsReconnectOptions(timing: NatsReconnectTiming = NATS_RECONNECT): {
  maxReconnectAttempts: number;
  reconnectDelayHandler: () => number;
} {
  return { maxReconnectAttempts: -1, reconnectDelayHandler: reconnectDelay(timing) };
}
