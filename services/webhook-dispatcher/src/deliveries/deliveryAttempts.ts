import { tracedQuery, type Queryable } from "@argus/eventstore";
import type { OutboundResult } from "@argus/platform";
import type { Message } from "./deliveryPayloads.ts";

/** Postgres's foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = "23503";

/**
 * Every attempt is kept: the delivery log users page through. An attempt of a webhook deleted
 * meanwhile is not: its log went with it (the `exists` guard alone cannot see a delete that
 * commits during the insert; the foreign key can).
 */
export async function recordAttempt(
  db: Queryable,
  webhookId: string,
  message: Message,
  attemptNumber: number,
  result: OutboundResult,
): Promise<void> {
  await tracedQuery(
    db,
    "record delivery attempt",
    `insert into delivery_attempts
       (webhook_id, event_id, attempt_number, payload, status_code, error_message, duration_ms)
     select $1, $2, $3, $4, $5, $6, $7 where exists (select 1 from webhooks where id = $1)`,
    [
      webhookId,
      message.eventId,
      attemptNumber,
      message.body,
      result.statusCode ?? null,
      result.error ?? null,
      Math.round(result.durationMs),
    ],
  ).catch((err: unknown) => {
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  });
}
