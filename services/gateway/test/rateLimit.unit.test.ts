import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../src/http/rateLimit.ts";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe("token bucket", () => {
  it("allows a full burst, then refuses with the whole seconds until the next token", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 2, burst: 3, now: c.now });
    for (let i = 0; i < 3; i++) expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    c.advance(499);
    expect(limiter.take("k").allowed).toBe(false);
    c.advance(1);
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k").allowed).toBe(false);
  });

  it("refills at the configured rate and never above the burst", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 10, burst: 5, now: c.now });
    for (let i = 0; i < 5; i++) limiter.take("k");
    c.advance(60_000);
    let allowed = 0;
    while (limiter.take("k").allowed) allowed++;
    expect(allowed).toBe(5);
  });

  it("rounds Retry-After up for slow rates", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 0.25, burst: 1, now: c.now });
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k")).toEqual({ allowed: false, retryAfterSeconds: 4 });
    c.advance(2_500);
    expect(limiter.take("k")).toEqual({ allowed: false, retryAfterSeconds: 2 });
  });

  it("peeks without spending: what take would decide, for known and unknown keys", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 2, now: c.now });
    expect(limiter.peek("k")).toEqual({ allowed: true });
    for (let i = 0; i < 5; i++) limiter.peek("k");
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.peek("k")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    c.advance(1_000);
    expect(limiter.peek("k")).toEqual({ allowed: true });
    expect(limiter.take("k").allowed).toBe(true);
    expect(limiter.peek("k").allowed).toBe(false);
  });

  it("keeps keys apart", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 1, now: c.now });
    expect(limiter.take("a").allowed).toBe(true);
    expect(limiter.take("a").allowed).toBe(false);
    expect(limiter.take("b").allowed).toBe(true);
  });

  it("forgets refilled buckets without forgetting a drained one", () => {
    const c = clock();
    const limiter = createRateLimiter({ ratePerSecond: 1, burst: 2, now: c.now, maxIdleKeys: 2 });
    limiter.take("idle");
    limiter.take("busy");
    limiter.take("busy");
    c.advance(1_500);
    limiter.take("new");
    // "idle" had refilled and was forgotten; "busy" still has only 1.5 tokens left of 2.
    expect(limiter.take("busy").allowed).toBe(true);
    expect(limiter.take("busy").allowed).toBe(false);
  });
});
