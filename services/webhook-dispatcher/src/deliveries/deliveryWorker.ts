import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { startWorkLoop } from "@argus/service-host";
import type { Clock, Logger } from "@argus/platform";
import { recordAttempt } from "./deliveryAttempts.ts";
import { DELIVERIES_CHANNEL } from "./deliveryConsumers.ts";
import { nextDelayMs, outcomeOf, type RetrySchedule } from "./deliverySchedule.ts";
import { attempt, type Outbound } from "./deliverySend.ts";

export interface WorkerOptions {
  pool: Pool;
  outbound: Outbound;
  /** The "now" of each attempt (its timestamp headers and signatures). */
  clock: Clock;
  schedule: RetrySchedule;
  logger: Logger;
  /** Attempts in flight in this process. */
  concurrency: number;
  /** Attempts in flight to one webhook: a slow or dead endpoint holds at most these slots. */
  perWebhook: number;
  /** How long past a webhook's timeout a claim lasts before another worker may take it over. */
  leaseMarginMs: number;
  /** The longest wait for work when nothing is announced (retries falling due, other replicas). */
  pollMs: number;
}

interface Claimed {
  id: string;
  event_id: string;
  webhook_id: string;
  event: string;
  payload: string;
  attempts: number;
  url: string;
  auth_type: string;
  timeout_ms: number;
  headers: Record<string, string>;
  auth_token: string | null;
  signing_secret: string | null;
}

/**
 * Works off due deliveries: claims a few of each webhook (a lease, so a worker that dies mid-
 * attempt leaves the delivery to another once the lease passes: at least once, with the same
 * event id), sends each at once in its own promise, records the attempt and schedules the next.
 * Every replica runs one; the claim's conditional update keeps two from taking one delivery.
 */
export function startDeliveryWorker(o: WorkerOptions): () => Promise<void> {
  const perWebhook = new Map<string, number>();

  async function claim(free: number): Promise<Claimed[]> {
    // Each webhook gets at most its free slots: perWebhook less what is in flight to it here.
    const busy = [...perWebhook];
    const res = await tracedQuery<Claimed>(
      o.pool,
      "claim deliveries",
      `with busy as (
         select * from unnest($2::uuid[], $5::int[]) as b(webhook_id, n)
       ), due_webhooks as (
         select distinct webhook_id from deliveries
          where state = 'pending' and next_attempt_at <= now()
            and (leased_until is null or leased_until < now())
       ), candidates as (
         select c.id from due_webhooks w
           left join busy b on b.webhook_id = w.webhook_id
          cross join lateral (
            select id, next_attempt_at from deliveries
             where webhook_id = w.webhook_id and state = 'pending' and next_attempt_at <= now()
               and (leased_until is null or leased_until < now())
             order by next_attempt_at limit greatest($3 - coalesce(b.n, 0), 0)) c
          order by c.next_attempt_at limit $1
       )
       update deliveries d
          set leased_until = now() + make_interval(secs => (w.timeout_ms + $4) / 1000.0),
              attempts = d.attempts + 1
         from webhooks w
        where d.id in (select id from candidates) and w.id = d.webhook_id
          and d.state = 'pending' and (d.leased_until is null or d.leased_until < now())
       returning d.id, d.event_id, d.webhook_id, d.event, d.payload, d.attempts, w.url,
         w.auth_type, w.timeout_ms, w.headers,
         (select auth_token from webhook_credentials c where c.webhook_id = d.webhook_id),
         (select signing_secret from webhook_credentials c where c.webhook_id = d.webhook_id)`,
      [free, busy.map(([id]) => id), o.perWebhook, o.leaseMarginMs, busy.map(([, n]) => n)],
    );
    return res.rows;
  }

  async function deliver(d: Claimed): Promise<void> {
    const message = { eventId: d.event_id, event: d.event, body: d.payload };
    const result = await attempt(
      {
        url: d.url,
        authType: d.auth_type,
        timeoutMs: d.timeout_ms,
        headers: d.headers,
        authToken: d.auth_token,
        signingSecret: d.signing_secret,
      },
      message,
      o.outbound,
      o.clock.now(),
    );
    const delay = nextDelayMs(o.schedule, d.attempts, result.retryAfterMs);
    const outcome = outcomeOf(result.statusCode, delay);
    await recordAttempt(o.pool, d.webhook_id, message, d.attempts, result);
    await tracedQuery(
      o.pool,
      "delivery outcome",
      `update deliveries
          set state = case when $2 = 'retry' then 'pending' else $2 end,
              next_attempt_at = case when $2 = 'retry'
                then now() + make_interval(secs => $3 / 1000.0) else next_attempt_at end,
              leased_until = null
        where id = $1`,
      [d.id, outcome, delay ?? 0],
    );
  }

  async function work(d: Claimed): Promise<void> {
    perWebhook.set(d.webhook_id, (perWebhook.get(d.webhook_id) ?? 0) + 1);
    try {
      await deliver(d);
    } finally {
      const n = (perWebhook.get(d.webhook_id) ?? 1) - 1;
      if (n === 0) perWebhook.delete(d.webhook_id);
      else perWebhook.set(d.webhook_id, n);
    }
  }

  return startWorkLoop({
    pool: o.pool,
    channel: DELIVERIES_CHANNEL,
    logger: o.logger,
    pollMs: o.pollMs,
    concurrency: o.concurrency,
    claim,
    work,
  });
}
