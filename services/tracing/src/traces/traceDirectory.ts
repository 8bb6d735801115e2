import { DomainError } from "@argus/platform";
import { parseQueryExpression } from "@argus/filter";
import type {
  UnitsToEvaluateRequest,
  UnitsToEvaluateResponse,
} from "@argus/proto/tracing/v1/tracing";
import type { TracingDeps } from "../deps.ts";
import { projectOfAccount } from "../projects/tracingProjects.ts";
import { invalid, isRfc3339 } from "../shared/tracingRules.ts";
import { positionAfter, positionOf, spanToEvaluate } from "../spans/spanDirectory.ts";
import { predicate } from "../spans/spanQueries.ts";
import type { SpanPredicate, SpanStore } from "../storage/spanStore.ts";
import { SPANS_PER_TRACE } from "./traceQueries.ts";

const FILTER_ID = /^[A-E]$/;
const PAGE = { default: 50, max: 200 } as const;

/** What admits a unit: the named filters (compiled) and their expression, checked. */
function admissionOf(req: UnitsToEvaluateRequest) {
  const ids = Object.keys(req.filters).sort();
  if (ids.length > 5 || !ids.every((id) => FILTER_ID.test(id)))
    throw invalid("filters: at most 5, with ids A to E");
  const filters = new Map<string, SpanPredicate>();
  for (const id of ids) {
    const compiled = predicate(req.filters[id]!);
    if (!compiled) throw invalid(`filter ${id} must not be empty`);
    filters.set(id, compiled);
  }
  if (ids.length > 1 && req.expression === "")
    throw invalid("an expression is required with two or more filters");
  const text = req.expression || ids[0];
  return { filters, expression: text ? parseQueryExpression(text, ids) : undefined };
}

/**
 * One page of the traces (one per root span) or sessions of a project's window, newest first,
 * those the filters' expression admits, each with up to 1000 of its spans (oldest first, each
 * with the filters it matches) and the span its evaluations go on. A session none of whose
 * traces has its root span in the window has nowhere to carry them: it is passed over.
 */
async function unitsOf(
  store: SpanStore,
  projectId: string,
  req: UnitsToEvaluateRequest,
): Promise<UnitsToEvaluateResponse> {
  const granularity = req.granularity;
  if (granularity !== "TRACE" && granularity !== "SESSION")
    throw invalid("granularity must be TRACE or SESSION");
  if (!isRfc3339(req.startTime) || !isRfc3339(req.endTime))
    throw invalid("start_time and end_time must be RFC 3339");
  const { filters, expression } = admissionOf(req);
  const limit = Math.min(Math.max(req.limit || PAGE.default, 1), PAGE.max);
  const after = positionOf(req.after);
  const window = { start: req.startTime, end: req.endTime, endExclusive: true };
  const heads = await store.listUnits({
    projectId,
    granularity,
    window,
    limit: limit + 1,
    ...(expression ? { admit: { expression, filters } } : {}),
    ...(after ? { after } : {}),
  });
  const page = heads.slice(0, limit);
  const sessions =
    granularity === "SESSION"
      ? await store.sessions(
          projectId,
          page.map((h) => h.unit_id),
          window,
          SPANS_PER_TRACE,
        )
      : undefined;
  const units = page.flatMap((h) => {
    if (!sessions)
      return [{ id: h.unit_id, root: h.span_id, traceIds: [h.trace_id], evaluated: h.evaluated }];
    const s = sessions.get(h.unit_id);
    return s?.rootSpanId
      ? [{ id: h.unit_id, root: s.rootSpanId, traceIds: s.traceIds, evaluated: s.evaluated }]
      : [];
  });
  const spans = await store.unitSpans(
    projectId,
    units.map((u, i) => ({ id: String(i), traceIds: u.traceIds })),
    window,
    SPANS_PER_TRACE + 1,
    filters,
  );
  const last = page[page.length - 1];
  return {
    units: units.map((u, i) => {
      const all = spans.get(String(i)) ?? [];
      return {
        id: u.id,
        rootSpanId: u.root,
        spans: all.slice(0, SPANS_PER_TRACE).map((r) => spanToEvaluate(r, r.matches)),
        spansTruncated: all.length > SPANS_PER_TRACE,
        evaluated: u.evaluated,
      };
    }),
    nextAfter: positionAfter(last, heads.length > limit),
  };
}

/** SpanDirectory's walk of whole traces and sessions, served to the task runner alone. */
export function traceDirectoryQueries(deps: TracingDeps) {
  return {
    /** The task runner's page of traces or sessions to evaluate (unitsOf). */
    async unitsToEvaluate(req: UnitsToEvaluateRequest): Promise<UnitsToEvaluateResponse> {
      const project = await projectOfAccount(deps.pool, req.accountId, req.projectId);
      if (!project) throw new DomainError("resource-not-found", "project not found");
      return unitsOf(deps.store, project.id, req);
    },
  };
}
