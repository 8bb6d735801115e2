import { randomBytes } from "node:crypto";
import type { PrincipalInvalidation } from "@argus/contracts/principalInvalidation";
import { hmacSha256Under, type Logger } from "@argus/platform";
import { LeaseState, startLeaseRenewal, type Instant } from "./gatewayLease.ts";
import type { Authenticator, AuthenticationMeta } from "./authenticate.ts";
import { PrincipalCache, systemClocks, type Authenticated, type Clocks } from "./principalCache.ts";
import { listenForInvalidations, type InvalidationListener } from "./principalInvalidations.ts";

export interface PrincipalCachingOptions {
  /** identity.Authenticate. */
  authenticate: (rawKey: string, meta: AuthenticationMeta) => Promise<Authenticated>;
  /** identity.RenewGatewayLease for this gateway (`release`: end it now). */
  renewLease: (
    req: { gatewayId: string; release: boolean },
    deadlineMs: number,
  ) => Promise<{ epoch: number; leaseMs: number }>;
  /** Where invalidations come from; undefined: no cache (every request asks identity). */
  nats: { servers: string[]; user: { user: string; pass: string } | undefined } | undefined;
  subject: string;
  maxEntries: number;
  maxTtlMs: number;
  logger: Logger;
  clock?: Clocks;
}

export interface PrincipalCaching {
  authenticator: Authenticator;
  gatewayId: string;
  stop(): Promise<void>;
}

/** The cache's reaction to one invalidation, before the acknowledgement goes out. */
export function applyInvalidation(
  m: PrincipalInvalidation,
  cache: PrincipalCache,
  lease: LeaseState,
): void {
  if (m.accountId === "") cache.clear();
  else cache.dropAccount(m.accountId);
  lease.received(m.epoch);
}

/** The cache's reaction to a renewal: clear it first when an invalidation was missed. */
export function applyRenewal(
  sent: Instant,
  r: { epoch: number; leaseMs: number },
  cache: PrincipalCache,
  lease: LeaseState,
): boolean {
  const { missed } = lease.renewed(sent, r.epoch, r.leaseMs);
  if (missed) cache.clear();
  return missed;
}

/**
 * The gateway's principal cache with confirmed invalidation (docs/architecture.md, "Principal
 * cache and invalidation"): a random gateway id, the NATS listener, the lease renewal and the
 * cache, wired so that the cache serves only while the lease is valid.
 */
export function startPrincipalCaching(o: PrincipalCachingOptions): PrincipalCaching {
  const clock = o.clock ?? systemClocks;
  const gatewayId = `gw-${randomBytes(12).toString("base64url")}`;
  // Keys are looked up by an HMAC under a key of this process, never by themselves: nothing
  // that outlives it (a log, a crash report) holds one. Its states live in this heap, so a heap
  // dump could check a guessed key, but an API key holds ~238 random bits: none is guessed.
  const hashKey = hmacSha256Under(randomBytes(32));
  const lease = new LeaseState(clock);
  const cache = new PrincipalCache({
    maxEntries: o.nats ? o.maxEntries : 0,
    maxTtlMs: o.maxTtlMs,
    servable: () => lease.valid(),
    clock,
  });
  const authenticator: Authenticator = {
    async authenticate(rawKey, meta) {
      const { value, outcome } = await cache.resolve(hashKey(rawKey), () =>
        o.authenticate(rawKey, meta),
      );
      meta.cacheOutcome?.(outcome);
      return value.principal;
    },
  };
  if (!o.nats || o.maxEntries === 0) {
    o.logger.info("principal cache off: every request asks identity", {
      reason: o.nats ? "ARGUS_PRINCIPAL_CACHE_MAX_ENTRIES=0" : "no NATS_URL",
    });
    return { authenticator, gatewayId, stop: async () => undefined };
  }

  const listener: InvalidationListener = listenForInvalidations({
    servers: o.nats.servers,
    user: o.nats.user,
    subject: o.subject,
    gatewayId,
    onInvalidation: (m) => applyInvalidation(m, cache, lease),
    logger: o.logger,
  });
  const log = o.logger.child({ gateway_id: gatewayId });
  const renewal = startLeaseRenewal({
    renew: (deadlineMs) => o.renewLease({ gatewayId, release: false }, deadlineMs),
    canHold: () => listener.live(),
    onRenewed: (sent, epoch, leaseMs) => {
      if (applyRenewal(sent, { epoch, leaseMs }, cache, lease))
        log.debug("principal cache cleared: an invalidation was missed", { epoch });
    },
    logger: log,
    clock,
  });
  return {
    authenticator,
    gatewayId,
    async stop() {
      // Nothing is served from the cache from here on, so identity need not wait for it: a
      // rolling restart does not hold changes up for a lease per replaced gateway.
      renewal.stop();
      lease.end();
      await o
        .renewLease({ gatewayId, release: true }, RELEASE_DEADLINE_MS)
        .catch((err: Error) => log.warn("releasing the lease failed", { error: err.message }));
      await listener.close();
    },
  };
}

// A stopping gateway does not wait long: without the release its lease just runs out.
const RELEASE_DEADLINE_MS = 1_000;
