import { NOBODY, fixedClock, type Principal } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { LeaseState, leaseMarginMs } from "../src/auth/gatewayLease.ts";
import { applyInvalidation, applyRenewal } from "../src/auth/principalCaching.ts";
import {
  PrincipalCache,
  clocksOf,
  type Authenticated,
  type Clocks,
} from "../src/auth/principalCache.ts";

/** A clock the test moves by hand; the wall clock starts at a fixed date. */
function manualClock(): Clocks & { advance(ms: number): void; stepWall(ms: number): void } {
  let mono = 1_000;
  let wall = Date.parse("2026-01-01T00:00:00Z");
  return {
    monotonicMs: () => mono,
    wallMs: () => wall,
    advance(ms) {
      mono += ms;
      wall += ms;
    },
    stepWall(ms) {
      wall += ms;
    },
  };
}

const principal = (accountId: string, apiKeyId: string): Principal => ({
  ...NOBODY,
  accountId,
  apiKeyId,
});

const answer = (accountId: string, keyExpiresAtMs = 0): Authenticated => ({
  principal: principal(accountId, `key-${accountId}`),
  keyExpiresAtMs,
});

/** A load the test resolves when it wants, counting calls. */
function deferredLoads() {
  const pending: ((v: Authenticated) => void)[] = [];
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    load: () => {
      calls += 1;
      return new Promise<Authenticated>((resolve) => pending.push(resolve));
    },
    resolveNext: (v: Authenticated) => pending.shift()!(v),
  };
}

function cacheWith(
  over: { maxEntries?: number; maxTtlMs?: number; servable?: () => boolean } = {},
) {
  const clock = manualClock();
  const cache = new PrincipalCache({
    maxEntries: over.maxEntries ?? 100,
    maxTtlMs: over.maxTtlMs ?? 60_000,
    servable: over.servable ?? (() => true),
    clock,
  });
  let loads = 0;
  const resolve = (key: string, value: Authenticated) =>
    cache.resolve(key, async () => {
      loads += 1;
      return value;
    });
  return { cache, clock, resolve, loads: () => loads };
}

/** A fill of "k" for account "a" with `meanwhile` happening while it is in flight. */
async function fillAround(
  t: ReturnType<typeof cacheWith>,
  d: ReturnType<typeof deferredLoads>,
  meanwhile: () => void,
) {
  const fill = t.cache.resolve("k", d.load);
  meanwhile();
  d.resolveNext(answer("a"));
  return fill;
}

describe("principal cache", () => {
  it("a second request for a key is a hit: identity is asked once", async () => {
    const t = cacheWith();
    expect((await t.resolve("k", answer("a"))).outcome).toBe("miss");
    expect((await t.resolve("k", answer("a"))).outcome).toBe("hit");
    expect(t.loads()).toBe(1);
  });

  it("serves nothing and stores nothing while it may not serve (no valid lease)", async () => {
    let servable = false;
    const t = cacheWith({ servable: () => servable });
    expect((await t.resolve("k", answer("a"))).outcome).toBe("bypass");
    servable = true;
    expect((await t.resolve("k", answer("a"))).outcome).toBe("miss");
    servable = false;
    expect((await t.resolve("k", answer("a"))).outcome).toBe("bypass");
    expect(t.loads()).toBe(3);
  });

  it("honours the key's expiry to the millisecond, and the max TTL", async () => {
    const t = cacheWith({ maxTtlMs: 10_000 });
    const expiresAt = t.clock.wallMs() + 2_000;
    await t.resolve("k", answer("a", expiresAt));
    t.clock.advance(1_999);
    expect((await t.resolve("k", answer("a", expiresAt))).outcome).toBe("hit");
    t.clock.advance(1);
    expect((await t.resolve("k", answer("a", expiresAt))).outcome).toBe("miss");

    await t.resolve("n", answer("b"));
    t.clock.advance(9_999);
    expect((await t.resolve("n", answer("b"))).outcome).toBe("hit");
    t.clock.advance(1);
    expect((await t.resolve("n", answer("b"))).outcome).toBe("miss");
  });

  it("reads key expiries on the gateway's Clock", async () => {
    const wall = fixedClock(new Date("2026-01-01T00:00:00Z"));
    const cache = new PrincipalCache({
      maxEntries: 10,
      maxTtlMs: 60_000,
      servable: () => true,
      clock: clocksOf(wall),
    });
    const expiresAt = wall.now().getTime() + 2_000;
    const resolve = () => cache.resolve("k", async () => answer("a", expiresAt));
    await resolve();
    wall.advance(1_999);
    expect((await resolve()).outcome).toBe("hit");
    wall.advance(1);
    expect((await resolve()).outcome).toBe("miss");
  });

  it("evicts the least recently used entry past its size", async () => {
    const t = cacheWith({ maxEntries: 2 });
    await t.resolve("k1", answer("a"));
    await t.resolve("k2", answer("a"));
    await t.resolve("k1", answer("a")); // k1 is now the most recent
    await t.resolve("k3", answer("a"));
    expect(t.cache.size).toBe(2);
    expect((await t.resolve("k1", answer("a"))).outcome).toBe("hit");
    expect((await t.resolve("k2", answer("a"))).outcome).toBe("miss");
  });

  it("drops one account's entries, or all of them", async () => {
    const t = cacheWith();
    await t.resolve("ka", answer("a"));
    await t.resolve("kb", answer("b"));
    t.cache.dropAccount("a");
    expect((await t.resolve("ka", answer("a"))).outcome).toBe("miss");
    expect((await t.resolve("kb", answer("b"))).outcome).toBe("hit");
    t.cache.clear();
    expect(t.cache.size).toBe(0);
  });

  it("a fill that started before its account was invalidated is used but not stored", async () => {
    const t = cacheWith();
    const d = deferredLoads();
    const first = await fillAround(t, d, () => t.cache.dropAccount("a"));
    expect(first.outcome).toBe("miss");
    expect(t.cache.size).toBe(0);
    // Another account's invalidation does not keep it out.
    await fillAround(t, d, () => t.cache.dropAccount("other"));
    expect(t.cache.size).toBe(1);
  });

  it("a fill that started before a clear is not stored, whatever its account", async () => {
    const t = cacheWith();
    const d = deferredLoads();
    await fillAround(t, d, () => t.cache.clear());
    expect(t.cache.size).toBe(0);
  });

  it("an older fill finishing after a newer one for the same key is still judged by its own start", async () => {
    const t = cacheWith();
    const d = deferredLoads();
    const older = t.cache.resolve("k", d.load);
    t.cache.dropAccount("a");
    const newer = t.cache.resolve("k", d.load); // not joined: an invalidation came in between
    expect(d.calls).toBe(2);
    d.resolveNext(answer("a")); // the older one's answer
    d.resolveNext(answer("a"));
    await Promise.all([older, newer]);
    // Only the newer one stored.
    expect(t.cache.size).toBe(1);
    // Two fills before an invalidation: the first finishing does not make the second forget it.
    const late = t.cache.resolve("k2", d.load);
    const later = t.cache.resolve("k3", d.load);
    t.cache.dropAccount("a");
    d.resolveNext(answer("a"));
    await late;
    d.resolveNext(answer("a"));
    await later;
    expect(t.cache.size).toBe(0);
  });

  it("concurrent misses share one fill, unless an invalidation came in since it started", async () => {
    const t = cacheWith();
    const d = deferredLoads();
    const a = t.cache.resolve("k", d.load);
    const b = t.cache.resolve("k", d.load);
    expect(d.calls).toBe(1);
    t.cache.dropAccount("unrelated");
    const c = t.cache.resolve("k", d.load);
    expect(d.calls).toBe(2);
    d.resolveNext(answer("a"));
    d.resolveNext(answer("a"));
    expect((await a).outcome).toBe("miss");
    expect((await b).outcome).toBe("shared");
    expect((await c).outcome).toBe("miss");
  });

  it("does not store a fill that finishes after the lease ran out", async () => {
    let servable = true;
    const t = cacheWith({ servable: () => servable });
    const d = deferredLoads();
    const fill = t.cache.resolve("k", d.load);
    servable = false;
    d.resolveNext(answer("a"));
    await fill;
    servable = true;
    expect((await t.resolve("k", answer("a"))).outcome).toBe("miss");
  });
});

/** A cache that serves only while its lease is valid, as the gateway wires them. */
function leasedCache() {
  const clock = manualClock();
  const lease = new LeaseState(clock);
  const cache = new PrincipalCache({
    maxEntries: 10,
    maxTtlMs: 60_000,
    servable: () => lease.valid(),
    clock,
  });
  return { clock, lease, cache };
}

describe("lease", () => {
  const sentAt = (clock: Clocks) => ({ monotonicMs: clock.monotonicMs(), wallMs: clock.wallMs() });

  it("is valid from a renewal until its send time + lease - margin, on both clocks", () => {
    const clock = manualClock();
    const lease = new LeaseState(clock);
    expect(lease.valid()).toBe(false);
    const sent = sentAt(clock);
    clock.advance(100); // the renewal's round trip
    lease.renewed(sent, 1, 3_000);
    expect(lease.valid()).toBe(true);
    clock.advance(3_000 - leaseMarginMs(3_000) - 101);
    expect(lease.valid()).toBe(true);
    clock.advance(1);
    expect(lease.valid()).toBe(false);

    // A suspended machine: the monotonic clock stood still, the wall clock did not.
    lease.renewed(sentAt(clock), 1, 3_000);
    clock.stepWall(10_000);
    expect(lease.valid()).toBe(false);
  });

  it("the first renewal, and any that passes an epoch never received, clears the cache", () => {
    const { clock, lease, cache } = leasedCache();
    expect(applyRenewal(sentAt(clock), { epoch: 5, leaseMs: 3_000 }, cache, lease)).toBe(true);
    // Epochs 6 and 7 arrive (in either order), then a renewal returns 7: nothing missed.
    applyInvalidation({ accountId: "a", epoch: 7 }, cache, lease);
    applyInvalidation({ accountId: "b", epoch: 6 }, cache, lease);
    expect(applyRenewal(sentAt(clock), { epoch: 7, leaseMs: 3_000 }, cache, lease)).toBe(false);
    // Epoch 8 never arrives; 9 does: the renewal returning 9 clears.
    applyInvalidation({ accountId: "a", epoch: 9 }, cache, lease);
    expect(applyRenewal(sentAt(clock), { epoch: 9, leaseMs: 3_000 }, cache, lease)).toBe(true);
    // A late 8 changes nothing any more; the same epoch again is no gap.
    applyInvalidation({ accountId: "a", epoch: 8 }, cache, lease);
    expect(applyRenewal(sentAt(clock), { epoch: 9, leaseMs: 3_000 }, cache, lease)).toBe(false);
  });

  it("a renewal that reveals a missed epoch empties the cache before it serves again", async () => {
    const { clock, lease, cache } = leasedCache();
    applyRenewal(sentAt(clock), { epoch: 1, leaseMs: 3_000 }, cache, lease);
    await cache.resolve("k", async () => answer("a"));
    expect(cache.size).toBe(1);
    applyRenewal(sentAt(clock), { epoch: 2, leaseMs: 3_000 }, cache, lease);
    expect(cache.size).toBe(0);
  });
});
