import { bulkDataJson, bulkDataText, type ConsumedEvent } from "@argus/eventstore";
import { isUuidAnyCase } from "@argus/platform";

/** One audit log row: who did what to which resource, when and from where. */
export interface AuditEntry {
  eventId: string;
  accountId: string;
  actorUserId: string | null;
  actorServiceAccountId: string | null;
  apiKeyId: string | null;
  clientIp: string;
  requestId: string;
  operationName: string;
  operationType: "MUTATION";
  resourceType: string;
  resourceId: string;
  /**
   * The event's data as JSON; a bulk write's (`BULK_DATA_CHARS`, such as 1000 examples of a
   * dataset) as the records it touched, not a second copy of their contents, which would
   * double every bulk write's storage and put dataset contents in the log (`bulkDataJson`).
   * The bus may bring such an event already cut that way; its entry is the same. Its UTF-8
   * when it is the text the event came with (`bulkDataText`).
   */
  variablesJson: string | Uint8Array;
  occurredAt: Date;
}

function uuidOrNull(v: unknown): string | null {
  return typeof v === "string" && isUuidAnyCase(v) ? v : null;
}

const text = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * Events that record no change to a managed resource: receipts of ingested data (one per OTLP
 * request and project), which at ingestion volume would bury the changes the log is for.
 */
const NOT_AUDITED = new Set(["SpansReceived"]);

/**
 * Pure: the audit entry an event makes, or null for events that belong to no account.
 * The actor comes from the metadata every command records (platform `actorMetadata`); the
 * account from the metadata or, for headless initialization's events, from the data.
 */
export function auditEntryOf(event: ConsumedEvent): AuditEntry | null {
  if (NOT_AUDITED.has(event.type)) return null;
  const m = event.metadata;
  // The data is read (and, off the bus, parsed) only for an event whose metadata names no account.
  const data = () => (event.data ?? {}) as Record<string, unknown>;
  const accountId =
    uuidOrNull(m.account_id) ??
    uuidOrNull(data().account_id) ??
    (event.type === "AccountCreated" ? uuidOrNull(data().id) : null);
  if (!accountId) return null;
  // Stream ids are `<aggregate>-<id>` (as the relay's subjects read them).
  const dash = event.streamId.indexOf("-");
  const aggregate = dash === -1 ? event.streamId : event.streamId.slice(0, dash);
  return {
    eventId: event.eventId,
    accountId,
    actorUserId: uuidOrNull(m.actor_user_id),
    actorServiceAccountId: uuidOrNull(m.actor_service_account_id),
    apiKeyId: uuidOrNull(m.api_key_id),
    clientIp: text(m.client_ip),
    requestId: text(m.request_id),
    // Every event records a change: the public API's QUERY and SUBSCRIPTION never occur here.
    operationName: event.type,
    operationType: "MUTATION",
    resourceType: aggregate,
    resourceId: dash === -1 ? event.streamId : event.streamId.slice(dash + 1),
    variablesJson: event.dataText
      ? bulkDataText(event.dataText, () => event.data)
      : bulkDataJson(event.data),
    occurredAt: event.recordedAt,
  };
}
