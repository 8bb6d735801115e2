import { DomainError, notFound, type CallContext } from "@argus/platform";
import { Encoding, type ExportRequest, type ExportResponse } from "@argus/proto/tracing/v1/tracing";
import { isUuid, requireCreatable, requirePermissionAt } from "@argus/spaces";
import type { SpanRecord } from "./spanRecord.ts";
import { PROJECT_ACCESS, invalid } from "../shared/tracingRules.ts";
import { decodeExport, OtlpDecodeError } from "../otlp/decode.ts";
import { dayOfMs, dayOfNanos } from "../storage/time.ts";
import type { TracingDeps } from "../deps.ts";
import type { ProjectPlace } from "../projects/tracingProjects.ts";
import { appendToSpans, lockSpans } from "./spanSet.ts";

// Postgres: "no partition of relation found for row".
const NO_PARTITION = "23514";

/**
 * Each project's new spans and their one SpansReceived, in one transaction, under the projects'
 * locks (writes to one project's spans take turns, as the span updates and deletes do), taken
 * in id order before anything is written. Without them, exports racing onto one project all
 * read the same last version of its span set and all but one redid the whole transaction:
 * with 48 exporters, some ran out of retries and lost their spans (an OTLP client does not retry
 * ALREADY_EXISTS). Locked only at the append, a transaction could still find its set's last
 * event written by a later transaction id than its own, which the event store refuses.
 */
function store(
  deps: TracingDeps,
  ctx: CallContext,
  writable: readonly { project: ProjectPlace; spans: SpanRecord[] }[],
  now: Date,
): Promise<void> {
  const byId = [...writable].sort((a, b) => (a.project.id < b.project.id ? -1 : 1));
  return deps.commands.transact(async (scope) => {
    for (const { project } of byId) await lockSpans(scope, project.id);
    for (const { project, spans } of byId) {
      const added = await deps.store.insert(scope.client, project.id, spans);
      if (added.count === 0) continue;
      await appendToSpans(scope, ctx, project, [
        {
          type: "SpansReceived",
          data: {
            project_id: project.id,
            space_id: project.spaceId,
            span_count: added.count,
            start_time: added.minStart,
            end_time: added.maxStart,
            received_at: now.toISOString(),
          },
        },
      ]);
    }
  });
}

/** The project of spans whose resource names none (arize-otel always names one). */
const DEFAULT_PROJECT = "default";

/** The days a span may start on: within retention (a day of slack before the drop), and not past tomorrow. */
function acceptedDays(retentionDays: number, now: number): { first: number; last: number } {
  const today = dayOfMs(now);
  return { first: today - retentionDays + 1, last: today + 1 };
}

// What refuses one project's spans and not the request: the others may still be stored.
const REFUSALS = new Set([
  "access-forbidden",
  "resource-not-found",
  "validation-error",
  "invalid-request",
]);

interface Refusal {
  count: number;
  reason: string;
}

/**
 * OTLP ingestion (and the SDK's spans.log, which the gateway sends as OTLP with
 * `all_or_nothing`): decode, then per project named by a resource — created in the space on
 * first use — check PROJECT_SPAN_CREATE there (restricted projects hold), and store each
 * project's spans set-based with one SpansReceived event, all in one transaction. Spans that
 * cannot be stored are OTLP's partial success, with the first reason; a request none of whose
 * projects the caller may write to is refused as a whole.
 */
export function exportCommand(deps: TracingDeps) {
  return async function exportSpans(req: ExportRequest, ctx: CallContext): Promise<ExportResponse> {
    const encoding =
      req.encoding === Encoding.ENCODING_JSON
        ? "json"
        : req.encoding === Encoding.ENCODING_PROTOBUF
          ? "protobuf"
          : undefined;
    if (!encoding) throw invalid("the encoding must be protobuf or json");
    // Only ids name spaces; anything else would reach identity's lookup as a malformed uuid.
    if (!isUuid(req.spaceId)) throw notFound("space");
    await requireCreatable(deps.spaces, ctx, req.spaceId, "PROJECT_SPAN_CREATE");
    let decoded;
    try {
      decoded = decodeExport(req.payload, encoding);
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw invalid(err.message);
      throw err;
    }
    const refusals: Refusal[] = [];
    if (decoded.rejectedSpans > 0)
      refusals.push({ count: decoded.rejectedSpans, reason: decoded.errorMessage });

    // One group per project name, spans outside the days storage keeps refused.
    const now = deps.clock.now();
    const days = acceptedDays(deps.retentionDays, now.getTime());
    const groups = new Map<string, SpanRecord[]>();
    let outside = 0;
    for (const batch of decoded.batches) {
      const name = batch.projectName || DEFAULT_PROJECT;
      const kept = batch.spans.filter((s) => {
        const day = dayOfNanos(s.startTimeUnixNano);
        return day >= days.first && day <= days.last;
      });
      outside += batch.spans.length - kept.length;
      if (kept.length > 0) groups.set(name, [...(groups.get(name) ?? []), ...kept]);
    }
    if (outside > 0)
      refusals.push({
        count: outside,
        reason: `${outside} spans start outside the stored window (the last ${deps.retentionDays} days to tomorrow)`,
      });
    // The SDK's spans.log: an upload lands whole or not at all (its caller reads only the
    // status), refused before a project is created for it.
    if (req.allOrNothing && refusals.length > 0)
      throw invalid(refusals.map((r) => r.reason).join("; "));

    const writable: { project: ProjectPlace; spans: SpanRecord[] }[] = [];
    let denial: unknown;
    for (const [name, spans] of groups) {
      try {
        const project = await deps.projects.ensure(ctx, req.spaceId, name);
        await requirePermissionAt(
          deps.spaces,
          ctx,
          { accountId: project.accountId, spaceId: project.spaceId, projectId: project.id },
          PROJECT_ACCESS,
          "PROJECT_SPAN_CREATE",
        );
        writable.push({ project, spans });
      } catch (err) {
        if (!(err instanceof DomainError) || !REFUSALS.has(err.type)) throw err;
        denial ??= err;
        refusals.push({
          count: spans.length,
          reason: `project ${JSON.stringify(name)}: ${err.message}`,
        });
      }
    }
    if (writable.length === 0 && denial !== undefined) throw denial;
    if (req.allOrNothing && denial !== undefined) throw denial;

    if (writable.length > 0) {
      const days = writable.flatMap((w) => w.spans.map((s) => dayOfNanos(s.startTimeUnixNano)));
      await deps.store.prepare(days);
      try {
        await store(deps, ctx, writable, now);
      } catch (err) {
        // Another replica dropped a day this one still took for ready (a retention change
        // during a rollout): make sure of the days again, once.
        if ((err as { code?: string }).code !== NO_PARTITION) throw err;
        await deps.store.prepare(days, true);
        await store(deps, ctx, writable, now);
      }
    }
    const rejected = refusals.reduce((n, r) => n + r.count, 0);
    return {
      rejectedSpans: BigInt(rejected),
      errorMessage: refusals.length === 0 ? "" : refusals.map((r) => r.reason).join("; "),
    };
  };
}
