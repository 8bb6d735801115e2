import { setTimeout as sleep } from "node:timers/promises";
import { createInbox, type NatsConnection } from "@nats-io/transport-node";
import { decodeAck, encodeInvalidation } from "@argus/contracts/principalInvalidation";
import type { Queryable } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import type { Pool } from "pg";
import { bumpEpoch, liveLeases, type LiveLease } from "./gatewayLeases.ts";

/** What one invalidation found: who confirmed, and whose lease had to run out instead. */
interface InvalidationReport {
  epoch: number;
  confirmed: string[];
  unconfirmed: string[];
  waitedMs: number;
}

export interface PrincipalInvalidator {
  /**
   * Bumps the epoch as the last statement of the command's transaction: the change and its
   * epoch commit together, so a gateway learns of a change even if nothing after the commit
   * runs (its next renewal returns an epoch it never received, and it clears its cache).
   */
  bump(tx: Queryable): Promise<number>;
  /**
   * After the commit: tells every gateway to drop `accountId`'s principals ("" = all), and
   * resolves once each gateway whose lease was live confirmed it or its lease ran out: from
   * then on no gateway serves a principal cached before the change (docs/architecture.md).
   */
  confirm(accountId: string, epoch: number): Promise<InvalidationReport>;
}

/**
 * How much longer to wait (ms) for the gateways that have neither confirmed nor run out of
 * lease, `elapsedMs` after the leases were read; undefined when none is left.
 */
export function stillWaiting(
  leases: readonly LiveLease[],
  acked: ReadonlySet<string>,
  elapsedMs: number,
): number | undefined {
  let longest: number | undefined;
  for (const l of leases) {
    const left = l.remainingMs - elapsedMs;
    if (!acked.has(l.gatewayId) && left > 0) longest = Math.max(longest ?? 0, left);
  }
  return longest;
}

/** The acknowledgements arriving on one request's own inbox. */
interface AckInbox {
  /** Absent when NATS refused the subscription (closed connection): nobody can answer. */
  readonly subject: string | undefined;
  readonly acked: ReadonlySet<string>;
  /** Resolves at the next acknowledgement, or after `ms`. */
  next(ms: number): Promise<void>;
  close(): void;
}

function ackInbox(nc: NatsConnection, prefix: string, logger: Logger): AckInbox {
  const acked = new Set<string>();
  let wake: (() => void) | undefined;
  let subject: string | undefined = createInbox(prefix);
  let close = (): void => undefined;
  try {
    const sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        const ack = err ? undefined : decodeAck(msg.data);
        if (!ack) return;
        acked.add(ack.gatewayId);
        wake?.();
      },
    });
    close = () => sub.unsubscribe();
  } catch (err) {
    logger.warn("no inbox for invalidation acknowledgements", { error: (err as Error).message });
    subject = undefined;
  }
  return {
    subject,
    acked,
    async next(ms) {
      const ac = new AbortController();
      await Promise.race([
        new Promise<void>((resolve) => (wake = resolve)),
        sleep(ms, undefined, { signal: ac.signal }).catch(() => undefined),
      ]);
      ac.abort();
      wake = undefined;
    },
    close,
  };
}

export function natsPrincipalInvalidator(o: {
  pool: Pool;
  nc: NatsConnection;
  /** principalInvalidationSubject(root). */
  subject: string;
  /** This process's inbox prefix (its NATS identity may read only those replies). */
  inboxPrefix: string;
  logger: Logger;
}): PrincipalInvalidator {
  return {
    bump: bumpEpoch,
    async confirm(accountId, epoch) {
      // The inbox listens before anything is sent, so no acknowledgement can be missed.
      const inbox = ackInbox(o.nc, o.inboxPrefix, o.logger);
      try {
        if (inbox.subject)
          try {
            o.nc.publish(o.subject, encodeInvalidation({ accountId, epoch }), {
              reply: inbox.subject,
            });
          } catch (err) {
            // Nobody hears it: the wait below falls back to each lease running out.
            o.logger.warn("publishing an invalidation failed", { error: (err as Error).message });
          }
        // Read after the bump committed: a renewal committed later returned this epoch or a
        // newer one, and the gateway holding it cleared its whole cache unless it got this
        // message; one committed earlier left the lease read here.
        const leases = await liveLeases(o.pool);
        const started = performance.now();
        for (
          let left = stillWaiting(leases, inbox.acked, 0);
          left !== undefined;
          left = stillWaiting(leases, inbox.acked, performance.now() - started)
        )
          await inbox.next(left);
        const report = {
          epoch,
          confirmed: leases.filter((l) => inbox.acked.has(l.gatewayId)).map((l) => l.gatewayId),
          unconfirmed: leases.filter((l) => !inbox.acked.has(l.gatewayId)).map((l) => l.gatewayId),
          waitedMs: Math.round(performance.now() - started),
        };
        if (report.unconfirmed.length > 0)
          o.logger.warn("gateways did not confirm an invalidation; waited for their leases", {
            epoch,
            account_id: accountId,
            gateways: report.unconfirmed,
            waited_ms: report.waitedMs,
          });
        return report;
      } finally {
        inbox.close();
      }
    },
  };
}
