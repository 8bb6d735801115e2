import { tracedQuery } from "@argus/eventstore";
import type { DurableConsumerOptions } from "@argus/service-host";
import { uuidv7 } from "@argus/platform";
import { auditEntryOf } from "./auditEntry.ts";

const AUDIT_CONSUMER = "identity-audit-log";

/**
 * The audit log is a projection of EVERY service's events: one durable consumer on the whole
 * stream (nats-server 2.9 takes a single filter subject, so `<root>.>`). Its one insert is
 * keyed by the unique event_id, so a redelivery is a no-op by itself: it runs without the
 * processed-events marker and its transaction (one round trip an event, not four). Its data is
 * taken as it came (`lazyData`): the log keeps that text as it is (auditEntry.ts).
 */
export function auditConsumer(subjectRoot: string): DurableConsumerOptions {
  return {
    durable: AUDIT_CONSUMER,
    filterSubject: `${subjectRoot}.>`,
    concurrency: 16,
    idempotent: true,
    lazyData: true,
    async handler(tx, event) {
      const e = auditEntryOf(event);
      if (!e) return;
      await tracedQuery(
        tx,
        "project audit log",
        `insert into audit_log (id, event_id, account_id, actor_user_id, actor_service_account_id, api_key_id,
                                client_ip, request_id, operation_name, operation_type, resource_type, resource_id,
                                variables_json, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         on conflict (event_id) do nothing`,
        [
          uuidv7(),
          e.eventId,
          e.accountId,
          e.actorUserId,
          e.actorServiceAccountId,
          e.apiKeyId,
          e.clientIp,
          e.requestId,
          e.operationName,
          e.operationType,
          e.resourceType,
          e.resourceId,
          e.variablesJson,
          e.occurredAt,
        ],
      );
    },
  };
}
