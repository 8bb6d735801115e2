import type { StoredEvent } from "@argus/eventstore";
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
  /** The event's data as JSON, its bulk records cut to their ids (`auditVariables`). */
  variablesJson: string;
  occurredAt: Date;
}

/**
 * Event data longer than this (in JSON characters) is a bulk write, such as 1000 examples of
 * a dataset: the log keeps which records it touched, not a second copy of their contents
 * (which would double every bulk write's storage and put dataset contents in the log).
 */
export const AUDIT_VARIABLES_MAX_CHARS = 16 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A record's ids: its `id` and every `…_id` member. */
function idsOf(r: unknown): unknown {
  if (!isRecord(r)) return r;
  const ids: Record<string, unknown> = {};
  for (const k in r) if (k === "id" || k.endsWith("_id")) ids[k] = r[k];
  return ids;
}

/**
 * Whether the JSON text of `value` has more than `max` characters, judged by a bound from
 * below (each string's and key's characters and quotes, nothing else) that stops once past
 * `max`: false means "maybe not", true means certainly.
 */
function longerThan(value: unknown, max: number): boolean {
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") chars += v.length + 2;
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (isRecord(v))
      for (const k in v) {
        chars += k.length + 3;
        stack.push(v[k]);
      }
    if (chars > max) return true;
  }
  return false;
}

/** The data with each top-level array of records cut to their ids, as JSON. */
const cutToIds = (data: Record<string, unknown>): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Array.isArray(v) ? v.map(idsOf) : v]),
    ),
  );

/**
 * The data as JSON; over the bound, each top-level array of records keeps their ids only. A
 * bulk event is known to be over it without writing its megabyte of JSON just to measure it.
 */
export function auditVariables(data: unknown): string {
  if (isRecord(data) && longerThan(data, AUDIT_VARIABLES_MAX_CHARS)) return cutToIds(data);
  const full = JSON.stringify(data ?? null);
  if (full.length <= AUDIT_VARIABLES_MAX_CHARS || !isRecord(data)) return full;
  return cutToIds(data);
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
export function auditEntryOf(event: StoredEvent): AuditEntry | null {
  if (NOT_AUDITED.has(event.type)) return null;
  const m = event.metadata;
  const data = (event.data ?? {}) as Record<string, unknown>;
  const accountId =
    uuidOrNull(m.account_id) ??
    uuidOrNull(data.account_id) ??
    (event.type === "AccountCreated" ? uuidOrNull(data.id) : null);
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
    variablesJson: auditVariables(event.data),
    occurredAt: event.recordedAt,
  };
}
