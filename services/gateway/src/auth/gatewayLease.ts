import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "@argus/platform";
import { systemClocks, type Clocks } from "./principalCache.ts";

/** When a renewal was sent, on both clocks. */
export interface Instant {
  monotonicMs: number;
  wallMs: number;
}

const instantOf = (clock: Clocks): Instant => ({
  monotonicMs: clock.monotonicMs(),
  wallMs: clock.wallMs(),
});

/** Taken off every lease: the database's clock may step, and timers may run early. */
export const leaseMarginMs = (leaseMs: number): number => Math.min(250, leaseMs / 10);

// Epochs received ahead of the last renewal are remembered up to this many; past it the next
// renewal clears the cache rather than the set growing without bound (a renewal is overdue).
const MAX_AHEAD = 10_000;

/**
 * The gateway's side of its lease on the principal cache (docs/architecture.md, "Principal
 * cache and invalidation"): until when the cache may serve, and which authorization epochs
 * were received, so a renewal can tell whether an invalidation was missed.
 */
export class LeaseState {
  readonly #clock: Clocks;
  #validUntil: Instant = { monotonicMs: -Infinity, wallMs: -Infinity };
  /** Every epoch up to it was received (or the cache cleared since); undefined: none known. */
  #watermark: number | undefined;
  readonly #ahead = new Set<number>();

  constructor(clock: Clocks = systemClocks) {
    this.#clock = clock;
  }

  /**
   * Valid on both clocks: the monotonic one does not count a suspended machine, the wall
   * clock may step; either one running out ends the lease.
   */
  valid(): boolean {
    return (
      this.#clock.monotonicMs() < this.#validUntil.monotonicMs &&
      this.#clock.wallMs() < this.#validUntil.wallMs
    );
  }

  /** Ends the lease now (the gateway is stopping); a later renewal would start a new one. */
  end(): void {
    this.#validUntil = { monotonicMs: -Infinity, wallMs: -Infinity };
  }

  /** An invalidation of `epoch` arrived (and its entries were dropped). */
  received(epoch: number): void {
    if (this.#watermark !== undefined && epoch <= this.#watermark) return;
    if (this.#ahead.size >= MAX_AHEAD) {
      this.#watermark = undefined;
      this.#ahead.clear();
      return;
    }
    this.#ahead.add(epoch);
  }

  /**
   * A renewal sent at `sent` returned `epoch`: the lease runs until `sent + leaseMs - margin`.
   * Returns whether an epoch up to `epoch` was never received, i.e. the cache must be cleared
   * before it serves again (the caller does it at once, in the same turn).
   */
  renewed(sent: Instant, epoch: number, leaseMs: number): { missed: boolean } {
    const missed = this.#watermark === undefined || !this.#allReceived(this.#watermark, epoch);
    this.#watermark = Math.max(this.#watermark ?? epoch, epoch);
    for (const e of this.#ahead) if (e <= this.#watermark) this.#ahead.delete(e);
    const until = leaseMs - leaseMarginMs(leaseMs);
    this.#validUntil = {
      monotonicMs: Math.max(this.#validUntil.monotonicMs, sent.monotonicMs + until),
      wallMs: Math.max(this.#validUntil.wallMs, sent.wallMs + until),
    };
    return { missed };
  }

  #allReceived(from: number, to: number): boolean {
    let count = 0;
    for (const e of this.#ahead) if (e > from && e <= to) count += 1;
    return count >= to - from;
  }
}

export interface LeaseRenewalOptions {
  /** RenewGatewayLease; rejects when identity cannot be reached in time. */
  renew: (deadlineMs: number) => Promise<{ epoch: number; leaseMs: number }>;
  /**
   * Whether to hold a lease now: only while invalidations can reach this gateway. A gateway
   * cut off from NATS lets its lease run out, so identity stops waiting for it.
   */
  canHold: () => boolean;
  onRenewed: (sent: Instant, epoch: number, leaseMs: number) => void;
  /** The gateway's own, which names it on every line. */
  logger: Logger;
  clock?: Clocks;
  /** Until identity says otherwise. */
  initialLeaseMs?: number;
}

/** Renews every lease/3, one renewal at a time; `stop` ends the loop. */
export function startLeaseRenewal(o: LeaseRenewalOptions): { stop(): void } {
  const clock = o.clock ?? systemClocks;
  const stopping = new AbortController();
  let leaseMs = o.initialLeaseMs ?? 3_000;
  let failing = false;
  const loop = async () => {
    while (!stopping.signal.aborted) {
      const sent = instantOf(clock);
      if (o.canHold()) {
        try {
          const r = await o.renew(leaseMs);
          // A renewal that returns after `stop` must not extend a lease that was ended.
          if (stopping.signal.aborted) break;
          leaseMs = r.leaseMs;
          o.onRenewed(sent, r.epoch, r.leaseMs);
          if (failing) o.logger.info("principal cache lease renewed again", { lease_ms: leaseMs });
          failing = false;
        } catch (err) {
          // Logged once per outage: the cache just stops serving until a renewal succeeds.
          if (!failing)
            o.logger.warn("principal cache lease not renewed; serving uncached", {
              error: (err as Error).message,
            });
          failing = true;
        }
      }
      const wait = sent.monotonicMs + leaseMs / 3 - clock.monotonicMs();
      await sleep(Math.max(0, wait), undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  };
  void loop();
  return { stop: () => stopping.abort() };
}
