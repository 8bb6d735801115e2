import { systemClock, type Clock, type Principal } from "@argus/platform";

/** What identity answered for a key. */
export interface Authenticated {
  principal: Principal;
  /** When the secret stops authenticating on its own (ms since the epoch); 0 = never. */
  keyExpiresAtMs: number;
}

/**
 * Two clocks: the monotonic one bounds ages and paces renewals (a stepped wall clock must not
 * stretch them), the wall clock is what key expiries and the lease's end are in.
 */
export interface Clocks {
  monotonicMs(): number;
  wallMs(): number;
}

/** The gateway's Clock as the wall clock, beside the process's monotonic one. */
export const clocksOf = (wall: Clock): Clocks => ({
  monotonicMs: () => performance.now(),
  wallMs: () => wall.now().getTime(),
});

export const systemClocks: Clocks = clocksOf(systemClock);

/** Where an answer came from: the cache, a fill another request started, identity, or identity past a cache that may not serve. */
export type CacheOutcome = "hit" | "shared" | "miss" | "bypass";

export interface PrincipalCacheOptions {
  maxEntries: number;
  /** No entry is served longer than this after its fill started, whatever else holds. */
  maxTtlMs: number;
  /** Whether the cache may serve and store now: the gateway's lease on it is valid. */
  servable: () => boolean;
  clock?: Clocks;
}

interface Entry {
  value: Authenticated;
  staleAtMs: number;
}

/** A fill under way: the invalidation count when it started, and its answer. */
interface Fill {
  readonly seq: number;
  readonly startedAtMs: number;
  readonly promise: Promise<Authenticated>;
}

// Past this many remembered invalidations the ones no fill can be affected by are forgotten.
const REMEMBERED_INVALIDATIONS = 1_024;

/**
 * Principals by key hash, bounded (least recently used out first) and aged (`maxTtlMs`, the
 * key's expiry), served only while `servable()` (docs/architecture.md, "Principal cache and
 * invalidation"). Invalidations drop an account's entries or all of them; a fill that started
 * before an invalidation that concerns it is used by its request but never stored, and a
 * request never joins a fill started before any invalidation.
 */
export class PrincipalCache {
  readonly #o: Required<PrincipalCacheOptions>;
  readonly #entries = new Map<string, Entry>();
  readonly #byAccount = new Map<string, Set<string>>();
  /** Invalidations processed so far (account drops and clears). */
  #seq = 0;
  #clearedAt = 0;
  /** The last invalidation of each account, while a fill older than it may still finish. */
  readonly #invalidatedAt = new Map<string, number>();
  readonly #fills = new Set<Fill>();
  /** The fill other requests for a key may join. */
  readonly #joinable = new Map<string, Fill>();

  constructor(o: PrincipalCacheOptions) {
    this.#o = { clock: systemClocks, ...o };
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The answer for the key hash: cached, joined, or from `load` (stored when it may be). */
  async resolve(
    keyHash: string,
    load: () => Promise<Authenticated>,
  ): Promise<{ value: Authenticated; outcome: CacheOutcome }> {
    if (this.#o.maxEntries === 0 || !this.#o.servable())
      return { value: await load(), outcome: "bypass" };
    const hit = this.#lookup(keyHash);
    if (hit) return { value: hit, outcome: "hit" };
    const running = this.#joinable.get(keyHash);
    if (running && running.seq === this.#seq)
      return { value: await running.promise, outcome: "shared" };

    const seq = this.#seq;
    const startedAtMs = this.#o.clock.monotonicMs();
    const fill: Fill = { seq, startedAtMs, promise: load() };
    this.#fills.add(fill);
    this.#joinable.set(keyHash, fill);
    try {
      const value = await fill.promise;
      this.#store(keyHash, fill, value);
      return { value, outcome: "miss" };
    } finally {
      this.#fills.delete(fill);
      if (this.#joinable.get(keyHash) === fill) this.#joinable.delete(keyHash);
      this.#forget();
    }
  }

  /** Drops the account's entries; its fills under way will not be stored. */
  dropAccount(accountId: string): void {
    this.#seq += 1;
    this.#invalidatedAt.set(accountId, this.#seq);
    for (const key of this.#byAccount.get(accountId) ?? []) this.#entries.delete(key);
    this.#byAccount.delete(accountId);
  }

  /** Drops every entry; no fill under way will be stored. */
  clear(): void {
    this.#seq += 1;
    this.#clearedAt = this.#seq;
    this.#invalidatedAt.clear();
    this.#entries.clear();
    this.#byAccount.clear();
  }

  #lookup(keyHash: string): Authenticated | undefined {
    const entry = this.#entries.get(keyHash);
    if (!entry) return undefined;
    if (!isFresh(entry, this.#o.clock)) {
      this.#delete(keyHash, entry);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.#entries.delete(keyHash);
    this.#entries.set(keyHash, entry);
    return entry.value;
  }

  #store(keyHash: string, fill: Fill, value: Authenticated): void {
    const account = value.principal.accountId;
    const invalidatedSince =
      this.#clearedAt > fill.seq || (this.#invalidatedAt.get(account) ?? 0) > fill.seq;
    if (invalidatedSince || !this.#o.servable()) return;
    const entry = { value, staleAtMs: fill.startedAtMs + this.#o.maxTtlMs };
    if (!isFresh(entry, this.#o.clock)) return;
    const previous = this.#entries.get(keyHash);
    if (previous) this.#delete(keyHash, previous);
    this.#entries.set(keyHash, entry);
    let keys = this.#byAccount.get(account);
    if (!keys) this.#byAccount.set(account, (keys = new Set()));
    keys.add(keyHash);
    for (const [oldest, e] of this.#entries) {
      if (this.#entries.size <= this.#o.maxEntries) break;
      this.#delete(oldest, e);
    }
  }

  #delete(keyHash: string, entry: Entry): void {
    this.#entries.delete(keyHash);
    const account = entry.value.principal.accountId;
    const keys = this.#byAccount.get(account);
    keys?.delete(keyHash);
    if (keys?.size === 0) this.#byAccount.delete(account);
  }

  /** Invalidations older than every fill under way can no longer stop a store. */
  #forget(): void {
    if (this.#fills.size === 0) return this.#invalidatedAt.clear();
    if (this.#invalidatedAt.size <= REMEMBERED_INVALIDATIONS) return;
    const oldest = Math.min(...[...this.#fills].map((f) => f.seq));
    for (const [account, seq] of this.#invalidatedAt)
      if (seq <= oldest) this.#invalidatedAt.delete(account);
  }
}

function isFresh(entry: Entry, clock: Clocks): boolean {
  const expiresAt = entry.value.keyExpiresAtMs;
  return clock.monotonicMs() < entry.staleAtMs && (expiresAt === 0 || clock.wallMs() < expiresAt);
}
