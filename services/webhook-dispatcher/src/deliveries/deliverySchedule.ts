/** The retry schedule: bounded, exponential, jittered, and never sooner than Retry-After asks. */
export interface RetrySchedule {
  /** Attempts in all, the first included; after the last failure the delivery is failed. */
  maxAttempts: number;
  /** The delay after the first failure; each later one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * The delay before attempt `failed + 1`, or undefined when `failed` attempts were the last.
 * Equal jitter (half fixed, half random) keeps retries of one outage from arriving together
 * while the delay still grows; Retry-After (capped at the longest delay) is a floor.
 */
export function nextDelayMs(
  s: RetrySchedule,
  failed: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (failed >= s.maxAttempts) return undefined;
  const exp = Math.min(s.baseDelayMs * 2 ** (failed - 1), s.maxDelayMs);
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, s.maxDelayMs)));
}

export type Outcome = "delivered" | "gone" | "retry" | "failed";

/** 2xx delivered; 410 Gone stops at once; anything else retries while the schedule allows. */
export function outcomeOf(statusCode: number | undefined, delayMs: number | undefined): Outcome {
  if (statusCode !== undefined && statusCode >= 200 && statusCode < 300) return "delivered";
  if (statusCode === 410) return "gone";
  return delayMs === undefined ? "failed" : "retry";
}
