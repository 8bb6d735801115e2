import { tracedQuery } from "@argus/eventstore";
import { DomainError, type CallContext } from "@argus/platform";
import type {
  PresentRecordsRequest,
  PresentRecordsResponse,
  SpanToEvaluate,
  SpansToEvaluateRequest,
  SpansToEvaluateResponse,
} from "@argus/proto/tracing/v1/tracing";
import { isUuid } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { projectOfAccount } from "../projects/tracingProjects.ts";
import { invalid, windowOf } from "../shared/tracingRules.ts";
import type { SpanPosition, SpanRow } from "../storage/spanStore.ts";
import { predicate } from "./spanQueries.ts";

const MAX_IDS = 5000;
const DAY = 86_400_000;

/** A span as an evaluation reads it: its fields, attributes as JSON, the evaluations on it. */
export const spanToEvaluate = (r: SpanRow, matches: string[] = []): SpanToEvaluate => ({
  spanId: r.span_id,
  traceId: r.trace_id,
  name: r.name,
  kind: r.kind,
  statusCode: r.status_code,
  attributesJson: JSON.stringify(r.attributes),
  evaluated: ((r.evaluations ?? []) as { name?: string }[]).flatMap((e) =>
    typeof e.name === "string" ? [e.name] : [],
  ),
  matches,
});

/** A page position of the task runner's walks (not the public cursors). */
export function positionOf(text: string): SpanPosition | undefined {
  if (!text) return undefined;
  try {
    const p = JSON.parse(text) as SpanPosition;
    if ([p.startTime, p.traceId, p.spanId].every((v) => typeof v === "string")) return p;
  } catch {
    // Refused below.
  }
  throw invalid("after is not a page position");
}

/** The position after `row`, as the next page's `after` (empty when no page follows). */
export const positionAfter = (
  row: { start_time: string; trace_id: string; span_id: string } | undefined,
  more: boolean,
): string =>
  more && row
    ? JSON.stringify({
        startTime: row.start_time,
        traceId: row.trace_id,
        spanId: row.span_id,
      } satisfies SpanPosition)
    : "";

/**
 * SpanDirectory: served to the catalog (records of annotation queues: it has authorized its
 * caller on the queue and checked that the project is in the queue's space) and to the task
 * runner (evaluations, on its own behalf in the run's account), each its own RPCs (service.ts).
 * Its walk of traces and sessions: traces/traceDirectory.ts; the evaluations the task runner
 * records: spanEvaluationCommands.ts.
 */
export function spanDirectoryQueries(deps: TracingDeps) {
  return {
    async presentRecords(
      req: PresentRecordsRequest,
      _ctx: CallContext,
    ): Promise<PresentRecordsResponse> {
      if (!isUuid(req.accountId)) throw invalid("account_id must be an id");
      if (req.granularity !== "SPAN" && req.granularity !== "TRACE")
        throw invalid("granularity must be SPAN or TRACE");
      if (req.ids.length > MAX_IDS)
        throw new DomainError("invalid-request", `at most ${MAX_IDS} ids`);
      const res = await tracedQuery(
        deps.pool,
        "project of records",
        "select id from projects where id = $1 and account_id = $2",
        [isUuid(req.projectId) ? req.projectId : null, req.accountId],
      );
      if (res.rows.length === 0 || req.ids.length === 0) return { ids: [] };
      // Every kept day by default, and the day after (clocks ahead of ours).
      const now = deps.clock.now().getTime();
      const window = windowOf(
        req.startTime,
        req.endTime || new Date(now + DAY).toISOString(),
        (deps.retentionDays + 1) * DAY,
        now,
      );
      const present = await deps.store.present(
        deps.pool,
        req.projectId,
        req.granularity === "SPAN" ? "span" : "trace",
        [...new Set(req.ids)],
        window,
      );
      return { ids: req.ids.filter((id) => present.has(id)) };
    },

    /** The task runner's page of spans to evaluate (on its own behalf, in the run's account). */
    async spansToEvaluate(req: SpansToEvaluateRequest): Promise<SpansToEvaluateResponse> {
      const project = await projectOfAccount(deps.pool, req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      const filter = predicate(req.filter);
      const limit = Math.min(Math.max(req.limit || 100, 1), 1000);
      const after = positionOf(req.after);
      const rows = await deps.store.listSpans({
        projectId: project.id,
        window: { start: req.startTime, end: req.endTime, endExclusive: true },
        limit: limit + 1,
        ...(filter ? { filter } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        spans: page.map((r) => spanToEvaluate(r)),
        nextAfter: positionAfter(last, rows.length > limit),
      };
    },
  };
}
