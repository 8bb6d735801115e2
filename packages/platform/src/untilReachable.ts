import { setTimeout as sleep } from "node:timers/promises";

/** Longest a process waits at start for a dependency that does not answer. */
export const STARTUP_WAIT_MS = 120_000;

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

// Nothing answers there yet: refused, reset, no route, a name not (yet) resolvable — a
// dependency starting beside this process (a pod, a container, a restart).
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  // Postgres: the database system is starting up (or shutting down).
  "57P03",
]);

/**
 * Whether `err` says the other side is not there (yet), as opposed to a refusal that waiting
 * does not change (a wrong password, a missing database), which should stop the process at once.
 */
export function isUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNREACHABLE_CODES.has(code) || /^08/.test(code))) return true;
    // nats.js: no server of the list accepted the connection.
    if (e.name === "ConnectionError") return true;
    // pg: the server went away during the connection's start-up.
    if (/^Connection terminated/.test(e.message)) return true;
    e = e.cause;
  }
  return false;
}

export interface UntilReachableOptions {
  logger: {
    warn(msg: string, fields?: Record<string, unknown>): void;
    info(msg: string, fields?: Record<string, unknown>): void;
  };
  /** Default STARTUP_WAIT_MS. */
  timeoutMs?: number;
}

/**
 * Runs `attempt` until it stops failing for want of `what`, backing off from 250 ms to 5 s, for
 * at most `timeoutMs`: a process started before its database or NATS (a pod scheduled first,
 * a restart of either) waits for it instead of exiting. Any other failure, or the last one after
 * the time is up, is thrown.
 */
export async function untilReachable<T>(
  what: string,
  attempt: () => Promise<T>,
  o: UntilReachableOptions,
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? STARTUP_WAIT_MS);
  let waited = false;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    try {
      const result = await attempt();
      if (waited) o.logger.info(`${what} answers`);
      return result;
    } catch (err) {
      if (!isUnreachable(err) || Date.now() + delay > deadline) throw err;
      o.logger.warn(`${what} unreachable; retrying`, {
        error: err instanceof Error ? err.message : String(err),
        retry_in_ms: delay,
      });
      waited = true;
      await sleep(delay);
    }
  }
}
