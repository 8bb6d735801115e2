export interface RateLimiterOptions {
  /** Tokens refilled per second. */
  ratePerSecond: number;
  /** Bucket capacity: the largest burst a fresh key may send. */
  burst: number;
  /** Milliseconds since the epoch (the gateway's Clock, app.ts `createLimiters`). */
  now?: () => number;
  /** Past this many tracked keys, buckets that have refilled completely are forgotten. */
  maxIdleKeys?: number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Spends one token of `key`'s bucket when it has one. */
  take(key: string): RateDecision;
  /** What `take` would decide, without spending anything. */
  peek(key: string): RateDecision;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** A token bucket per key, in this process (each gateway replica limits on its own). */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const now = opts.now ?? Date.now;
  const maxIdleKeys = opts.maxIdleKeys ?? 10_000;
  const buckets = new Map<string, Bucket>();
  const level = (b: Bucket, t: number): number =>
    Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.ratePerSecond);

  // A full bucket is the same as no bucket, so forgetting full ones bounds memory losslessly.
  const sweep = (t: number): void => {
    for (const [key, b] of buckets) if (level(b, t) >= opts.burst) buckets.delete(key);
  };

  const refused = (tokens: number): RateDecision => ({
    allowed: false,
    retryAfterSeconds: Math.ceil((1 - tokens) / opts.ratePerSecond),
  });

  return {
    peek(key) {
      const b = buckets.get(key);
      const tokens = b ? level(b, now()) : opts.burst;
      return tokens >= 1 ? { allowed: true } : refused(tokens);
    },
    take(key) {
      const t = now();
      const b = buckets.get(key) ?? { tokens: opts.burst, at: t };
      b.tokens = level(b, t);
      b.at = t;
      if (!buckets.has(key)) {
        if (buckets.size >= maxIdleKeys) sweep(t);
        buckets.set(key, b);
      }
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { allowed: true };
      }
      return refused(b.tokens);
    },
  };
}

/** The gateway's token buckets (app.ts `createLimiters`), one set per process. */
export interface GatewayLimiters {
  /** Requests per API key. */
  perKey: RateLimiter;
  /** Failed authentications per client address (authenticate.ts). */
  failures: RateLimiter;
}
