import { createHash } from "node:crypto";
import type { Pool } from "pg";
import type { ProjectSpans } from "../peers/projectSpans.ts";
import type { ItemEvaluator } from "./evaluators.ts";
import {
  evaluatePage,
  projectRun,
  evaluateOne,
  writePending,
  type Outcome,
  type Progress,
  type PendingEvaluation,
  type RunToWork,
} from "./runItems.ts";

const PAGE = 200;

/** What a project task's run needs of its task. */
export interface SpanTask {
  project_id: string;
  sampling_rate: number | null;
  query_filter: string | null;
  /** Per evaluator id, its own filter (ANDed with the task's). */
  evaluatorFilters: Map<string, string | null>;
}

/**
 * Whether a span is in the sample: a stable function of its id, so a resumed run and a
 * re-trigger sample the same spans.
 */
const sampled = (spanId: string, rate: number | null): boolean =>
  rate === null ||
  rate >= 1 ||
  createHash("sha256").update(spanId).digest().readUInt32BE(0) / 0x1_0000_0000 < rate;

/**
 * A window's items page by page (`page` fetches the one after `after`), each page's sample:
 * `max` items at most over all pages, so the pages stop once that many were taken.
 */
export async function* sampledPages<T>(
  page: (after: string) => Promise<{ items: T[]; nextAfter: string }>,
  idOf: (item: T) => string,
  rate: number | null,
  max: number,
): AsyncGenerator<T[]> {
  let after = "";
  let taken = 0;
  do {
    const { items, nextAfter } = await page(after);
    const chosen: T[] = [];
    for (const item of items) {
      if (taken >= max) break;
      if (!sampled(idOf(item), rate)) continue;
      taken++;
      chosen.push(item);
    }
    yield chosen;
    after = taken >= max ? "" : nextAfter;
  } while (after !== "");
}

/** A value as an evaluator's variable reads it: a string as it is, anything else as JSON. */
export const text = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v);

type SpanColumns = { name: string; kind: string; attributes: Record<string, unknown> };

/** A span as the tracing service sends it (attributes as JSON), as `columnOf` reads it. */
export const spanColumns = (s: {
  name: string;
  kind: string;
  attributesJson: string;
}): SpanColumns => ({
  name: s.name,
  kind: s.kind,
  attributes: JSON.parse(s.attributesJson) as Record<string, unknown>,
});

/** A span column's text: `attributes.<key>` (OpenInference keys are flat), else a few names. */
export function columnOf(column: string, span: SpanColumns) {
  if (column.startsWith("attributes.")) {
    const key = column.slice("attributes.".length);
    if (key in span.attributes) return text(span.attributes[key]);
    // Nested documents (a JSON object attribute) by path.
    let v: unknown = span.attributes;
    for (const part of key.split(".")) v = (v as Record<string, unknown> | undefined)?.[part];
    return text(v);
  }
  if (column === "input" || column === "output") return text(span.attributes[`${column}.value`]);
  if (column === "name") return span.name;
  if (column === "span_kind") return span.kind;
  return text(span.attributes[column]);
}

const and = (a: string | null, b: string | null) => (a && b ? `(${a}) and (${b})` : (a ?? b ?? ""));

/**
 * A project task's evaluation run over the spans of its window (newest first, `max_spans` at
 * most, sampled, filtered by the task's filter ANDed with the evaluator's own): page by page,
 * each span and evaluator once, evaluations written on the spans, progress after each page.
 * Evaluators with different filters of their own see different spans: one pass over the window
 * per distinct filter, each with its own `max_spans`.
 */
export async function evaluateSpans(
  pool: Pool,
  spans: ProjectSpans,
  run: RunToWork,
  task: SpanTask,
  evaluators: { runnable: ItemEvaluator[]; reasons: string[] },
  progress: Progress,
): Promise<Outcome> {
  const started = projectRun(run, evaluators);
  if ("status" in started) return started;
  const { options, window } = started;
  const { runnable } = evaluators;
  const passes = new Map<string, ItemEvaluator[]>();
  for (const e of runnable) {
    const filter = and(task.query_filter, task.evaluatorFilters.get(e.evaluatorId) ?? null);
    passes.set(filter, [...(passes.get(filter) ?? []), e]);
  }
  const write = (projectId: string, evaluations: PendingEvaluation[]) =>
    spans.record(
      run.account_id,
      projectId,
      run.task_id,
      evaluations.map(({ item_id, ...v }) => ({ spanId: item_id, ...v })),
    );
  // A dead worker's verdicts first: kept, not yet written.
  if (progress.resumed) await writePending(pool, run.id, write);
  for (const [filter, group] of passes) {
    const pages = sampledPages(
      async (after) => {
        const page = await spans.page({
          accountId: run.account_id,
          projectId: task.project_id,
          startTime: window.start,
          endTime: window.end,
          filter,
          after,
          limit: PAGE,
        });
        return { items: page.spans, nextAfter: page.nextAfter };
      },
      (s) => s.spanId,
      task.sampling_rate,
      options.max_spans,
    );
    for await (const chosen of pages) {
      const items = chosen.map((s) => {
        const span = spanColumns(s);
        return {
          id: s.spanId,
          target: task.project_id,
          evaluatedBy: (e: ItemEvaluator) => s.evaluated.includes(e.name),
          verdict: async (e: ItemEvaluator) => ({
            name: e.name,
            ...(await evaluateOne(e, (column) => columnOf(column, span))),
          }),
        };
      });
      const override = options.override_evaluations;
      if (!(await evaluatePage(pool, run.id, items, group, override, write, progress)))
        return { status: "STOPPED" };
    }
  }
  return { status: "COMPLETED" };
}
