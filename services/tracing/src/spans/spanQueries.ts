import { compileFilter } from "@argus/filter";
import type { CallContext } from "@argus/platform";
import type { ListSpansRequest, ListSpansResponse } from "@argus/proto/tracing/v1/tracing";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import {
  WINDOW_DEFAULTS,
  invalid,
  unprocessable,
  isRfc3339,
  windowOf,
} from "../shared/tracingRules.ts";
import type { SpanPosition, SpanPredicate, SpanRow, Window } from "../storage/spanStore.ts";
import { spanColumns } from "./spanColumns.ts";
import { renderSpan, type ColumnChoice } from "./spanRender.ts";

const SPANS_PAGE = { default: 50, max: 500 } as const;

export function predicate(filter: string): SpanPredicate | undefined {
  if (filter === "") return undefined;
  if (filter.trim() === "") throw invalid("filter must not be blank; omit it for no filter");
  // Compiled once up front, so a syntax error is a 400 before any query runs.
  compileFilter(filter, spanColumns("s"), 1);
  return (alias, firstParam) => compileFilter(filter, spanColumns(alias), firstParam);
}

/**
 * The last row of a page, and the window the walk resolved on its first page: a window left
 * to its defaults ends "now", and now moves on between pages; the walk keeps the first one.
 */
export const cursorOf = (r: SpanRow, w: Window): string =>
  JSON.stringify([r.start_time, r.trace_id, r.span_id, w.start, w.end]);

export function afterOf(text: string): { after: SpanPosition; window: Window } | undefined {
  if (!text) return undefined;
  const foreign = () => invalid("the cursor does not belong to this list");
  let parsed: unknown;
  // A cursor is the client's to send back unchanged, but anything may arrive: what is not
  // ours is a 400, never a JSON or timestamptz error (a 500).
  try {
    parsed = JSON.parse(text);
  } catch {
    throw foreign();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 5 ||
    !parsed.every((p) => typeof p === "string") ||
    ![0, 3, 4].every((i) => isRfc3339(parsed[i] as string))
  )
    throw foreign();
  const [startTime, traceId, spanId, start, end] = parsed as [
    string,
    string,
    string,
    string,
    string,
  ];
  return { after: { startTime, traceId, spanId }, window: { start, end } };
}

export const limitOf = (asked: number, page: { default: number; max: number }) => {
  const limit = asked || page.default;
  if (limit < 1 || limit > page.max) throw invalid(`limit must be 1 to ${page.max}`);
  return limit;
};

function columnsOf(req: ListSpansRequest): ColumnChoice {
  if (req.includedColumns.length > 0 && req.excludedColumns.length > 0)
    throw unprocessable("included_columns and excluded_columns are mutually exclusive");
  if (req.truncateStringLength < 0) throw unprocessable("truncate_string_length must be positive");
  return {
    included: req.includedColumns,
    excluded: req.excludedColumns,
    truncate: req.truncateStringLength,
  };
}

/** `POST /v2/spans`: one project, one window, newest first (traces: traces/traceQueries.ts). */
export function spanQueries(deps: TracingDeps) {
  return {
    async listSpans(req: ListSpansRequest, ctx: CallContext): Promise<ListSpansResponse> {
      const asked = windowOf(
        req.startTime,
        req.endTime,
        WINDOW_DEFAULTS.list,
        deps.clock.now().getTime(),
      );
      const columns = columnsOf(req);
      const filter = predicate(req.filter);
      const limit = limitOf(req.page?.limit ?? 0, SPANS_PAGE);
      const project = await loadProject(deps, ctx, req.projectId, "PROJECT_SPAN_READ");
      const cursor = afterOf(req.page?.after ?? "");
      const after = cursor?.after;
      const window = cursor?.window ?? asked;
      const rows = await deps.store.listSpans({
        projectId: project.id,
        window,
        limit: limit + 1,
        ...(filter ? { filter } : {}),
        ...(after ? { after } : {}),
      });
      const page = rows.slice(0, limit);
      return {
        spans: page.map((r) => JSON.stringify(renderSpan(r, columns))),
        page: { nextAfter: rows.length > limit ? cursorOf(page[page.length - 1]!, window) : "" },
      };
    },
  };
}
