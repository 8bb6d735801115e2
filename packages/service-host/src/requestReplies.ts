import type { Pool } from "pg";
import { findRequest, storeReply, sweepRequests, type Logger } from "@argus/eventstore";
import type { Clock, RequestReplies } from "@argus/platform";

// Expired keys are swept at most this often per process, a bounded batch at a time, on the
// back of a stored answer: a service that stores none keeps none to sweep.
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 1_000;

/**
 * The service's `applied_requests` as its gRPC binding reads and writes them: the answers of
 * requests sent with an Idempotency-Key, for a request the gateway forwards again.
 */
export function requestReplies(o: {
  pool: Pool;
  schema: string;
  clock: Clock;
  logger: Logger;
}): RequestReplies {
  let sweptAt = -Infinity;
  return {
    find: (key) => findRequest(o.pool, o.schema, key, o.clock.now()),
    async store(key, reply) {
      await storeReply(o.pool, o.schema, key, reply);
      if (performance.now() - sweptAt < SWEEP_EVERY_MS) return;
      sweptAt = performance.now();
      void sweepRequests(o.pool, o.schema, o.clock.now(), SWEEP_BATCH).catch((err: Error) =>
        o.logger.warn("sweeping expired request keys failed", { error: err.message }),
      );
    },
  };
}
