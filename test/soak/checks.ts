/**
 * What the soak checks once the faults are over: every acknowledged write is there as it was
 * acknowledged, no write took effect twice, the audit log holds every event, every subscribed
 * delivery arrived, every error answer was a Problem.
 */
import type pg from "pg";
import { SERVICE_REGISTRY } from "@argus/platform";
import { auditEntryOf } from "../../services/identity/src/auditLogs/auditEntry.ts";
import type { Received } from "../webhook-receiver.ts";
import { send, type Answer, type Api, type Ledger } from "./workload.ts";

export interface Finding {
  check: string;
  detail: string;
}

/** Reads every resource of the ledger back through the API. */
export async function lostWrites(api: Api, ledger: Ledger, sink: Answer[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const r of ledger.resources) {
    const a = await send(api, "GET", r.path, undefined, {}, sink);
    const name = (a.body as { name?: string } | undefined)?.name;
    if (r.deleted === true && a.status !== 404)
      findings.push({
        check: "lost",
        detail: `${r.kind} ${r.id}: deleted (acknowledged), GET answered ${a.status}`,
      });
    if (r.deleted === false && (a.status !== 200 || !r.names.has(String(name))))
      findings.push({
        check: "lost",
        detail: `${r.kind} ${r.id}: expected ${[...r.names].join(" or ")}, GET answered ${a.status} ${name ?? ""}`,
      });
    if (r.deleted === "maybe" && a.status === 200 && !r.names.has(String(name)))
      findings.push({
        check: "lost",
        detail: `${r.kind} ${r.id}: name ${name}, expected ${[...r.names].join(" or ")}`,
      });
  }
  return findings;
}

/** How many versions each commit message (a write's Idempotency-Key) made, by prompt. */
export async function versionCounts(
  api: Api,
  promptIds: string[],
  sink: Answer[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const id of promptIds) {
    let cursor = "";
    for (;;) {
      const a = await send(
        api,
        "GET",
        `/v2/prompts/${id}/versions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        undefined,
        {},
        sink,
      );
      if (a.status !== 200) throw new Error(`listing versions of ${id}: ${a.status}`);
      const page = a.body as {
        prompt_versions?: { commit_message: string }[];
        versions?: { commit_message: string }[];
        pagination?: { next_cursor?: string | null; has_more?: boolean };
      };
      for (const v of page.prompt_versions ?? page.versions ?? [])
        counts.set(v.commit_message, (counts.get(v.commit_message) ?? 0) + 1);
      const next = page.pagination?.next_cursor;
      if (!next) break;
      cursor = next;
    }
  }
  return counts;
}

/**
 * Writes applied more than once: a version per write at most, and exactly one for a write that
 * was acknowledged, or refused when sent again because its first attempt was applied.
 */
export function duplicateEffects(ledger: Ledger, counts: Map<string, number>): Finding[] {
  const findings: Finding[] = [];
  for (const v of ledger.versions) {
    const n = counts.get(v.message) ?? 0;
    if (n > 1)
      findings.push({
        check: "duplicate",
        detail: `write ${v.message} made ${n} versions (retried: ${v.retried})`,
      });
    if ((v.outcome === "acked" || v.outcome === "applied") && n === 0)
      findings.push({ check: "lost", detail: `${v.outcome} version ${v.message} is missing` });
  }
  return findings;
}

interface EventRow {
  schema: string;
  event_id: string;
  event_type: string;
  stream_id: string;
  stream_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

/** Every service's events, as the store keeps them. */
export async function allEvents(db: pg.Pool): Promise<EventRow[]> {
  const rows: EventRow[] = [];
  for (const d of SERVICE_REGISTRY) {
    const res = await db.query<Omit<EventRow, "schema">>(
      `select event_id::text, event_type, stream_id, stream_version, data, metadata, recorded_at
         from "${d.schema}".events`,
    );
    rows.push(...res.rows.map((r) => ({ ...r, schema: d.schema })));
  }
  return rows;
}

type StoredEvent = Parameters<typeof auditEntryOf>[0];

const asStored = (r: EventRow): StoredEvent =>
  ({
    eventId: r.event_id,
    type: r.event_type,
    streamId: r.stream_id,
    streamVersion: r.stream_version,
    data: r.data,
    metadata: r.metadata,
    recordedAt: r.recorded_at,
  }) as unknown as StoredEvent;

/** Audit log = events: every event that makes an entry has one, and no entry lacks an event. */
export async function auditMismatch(db: pg.Pool, events: EventRow[]): Promise<Finding[]> {
  const { rows } = await db.query<{ event_id: string }>(
    "select event_id::text from identity.audit_log",
  );
  const audited = new Set(rows.map((r) => r.event_id));
  const findings: Finding[] = [];
  const auditable = events.filter((e) => auditEntryOf(asStored(e)) !== null);
  for (const e of auditable)
    if (!audited.has(e.event_id))
      findings.push({
        check: "audit",
        detail: `${e.schema} ${e.event_type} ${e.event_id} not in the audit log`,
      });
  const known = new Set(events.map((e) => e.event_id));
  for (const id of audited)
    if (!known.has(id))
      findings.push({ check: "audit", detail: `audit entry of unknown event ${id}` });
  return findings;
}

/** Every version created on a subscribed prompt after `since` reached the receiver. */
export function undelivered(events: EventRow[], received: Received[], since: Date): Finding[] {
  const got = new Set(received.map((r) => String(r.headers["webhook-id"])));
  return events
    .filter(
      (e) =>
        e.schema === "catalog" &&
        e.event_type === "PromptVersionCreated" &&
        e.recorded_at > since &&
        !got.has(e.event_id),
    )
    .map((e) => ({ check: "webhook", detail: `delivery of ${e.event_id} never arrived` }));
}

/** How many events recorded up to `until` the audit log or the receiver has not got yet. */
export async function behind(
  db: pg.Pool,
  received: Received[],
  subscribedSince: Date,
  until: Date,
): Promise<number> {
  let missing = 0;
  for (const d of SERVICE_REGISTRY) {
    const { rows } = await db.query<Omit<EventRow, "schema">>(
      `select e.event_id::text, e.event_type, e.stream_id, e.stream_version, e.data, e.metadata,
              e.recorded_at
         from "${d.schema}".events e
         left join identity.audit_log a on a.event_id = e.event_id
        where a.event_id is null and e.recorded_at <= $1`,
      [until],
    );
    missing += rows.filter(
      (r) => auditEntryOf(asStored({ ...r, schema: d.schema })) !== null,
    ).length;
  }
  const { rows: versions } = await db.query<{ event_id: string }>(
    `select event_id::text from catalog.events
      where event_type = 'PromptVersionCreated' and recorded_at > $1 and recorded_at <= $2`,
    [subscribedSince, until],
  );
  const got = new Set(received.map((r) => String(r.headers["webhook-id"])));
  return missing + versions.filter((v) => !got.has(v.event_id)).length;
}

/** An error answer that is not a Problem (RFC 9457, as the API documents every error). */
export function notProblems(all: Answer[]): Finding[] {
  const findings: Finding[] = [];
  for (const a of all) {
    if (a.status < 400) continue;
    const b = a.body as Record<string, unknown> | undefined;
    const bad =
      !a.contentType.startsWith("application/problem+json") ||
      typeof b !== "object" ||
      b === null ||
      b.status !== a.status ||
      typeof b.type !== "string" ||
      typeof b.title !== "string" ||
      typeof b.detail !== "string";
    if (bad)
      findings.push({
        check: "problem",
        detail: `${a.method} ${a.path} ${a.status} ${a.contentType}: ${JSON.stringify(a.body)?.slice(0, 200)}`,
      });
  }
  return findings;
}
