import type { CallContext } from "@argus/platform";
import type { ListTracesRequest, ListTracesResponse } from "@argus/proto/tracing/v1/tracing";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { WINDOW_DEFAULTS, windowOf } from "../shared/tracingRules.ts";
import { afterOf, cursorOf, limitOf, predicate } from "../spans/spanQueries.ts";
import { renderSpan } from "../spans/spanRender.ts";

const TRACES_PAGE = { default: 50, max: 50 } as const;
/** Spans returned per trace entry; more are cut and flagged `spans_truncated`. */
export const SPANS_PER_TRACE = 1000;

/**
 * `POST /v2/traces`: one project, one window, newest first, a trace per root span with its
 * spans; the window, filter and cursor as the span list has them.
 */
export function traceQueries(deps: TracingDeps) {
  return {
    async listTraces(req: ListTracesRequest, ctx: CallContext): Promise<ListTracesResponse> {
      const asked = windowOf(
        req.startTime,
        req.endTime,
        WINDOW_DEFAULTS.list,
        deps.clock.now().getTime(),
      );
      const filter = predicate(req.filter);
      const limit = limitOf(req.page?.limit ?? 0, TRACES_PAGE);
      const project = await loadProject(deps, ctx, req.projectId, "PROJECT_SPAN_READ");
      const cursor = afterOf(req.page?.after ?? "");
      const after = cursor?.after;
      const window = cursor?.window ?? asked;
      const roots = await deps.store.listRoots({
        projectId: project.id,
        window,
        limit: limit + 1,
        ...(filter ? { filter } : {}),
        ...(after ? { after } : {}),
      });
      const page = roots.slice(0, limit);
      const spans = await deps.store.spansOfTraces(
        project.id,
        page.map((r) => r.trace_id),
        window,
        SPANS_PER_TRACE + 1,
      );
      return {
        traces: page.map((root) => {
          const all = spans.get(root.trace_id) ?? [root];
          const kept = all.slice(0, SPANS_PER_TRACE);
          const ends = kept.map((s) => s.end_time).sort();
          return JSON.stringify({
            trace_id: root.trace_id,
            root_span_id: root.span_id,
            start_time: kept.map((s) => s.start_time).sort()[0] ?? root.start_time,
            end_time: ends[ends.length - 1] ?? root.end_time,
            spans_truncated: all.length > SPANS_PER_TRACE,
            spans: kept.map((s) => renderSpan(s)),
          });
        }),
        page: { nextAfter: roots.length > limit ? cursorOf(page[page.length - 1]!, window) : "" },
      };
    },
  };
}
