import type { Pool } from "pg";
import type { SpanToEvaluate } from "@argus/proto/tracing/v1/tracing";
import type { ProjectSpans } from "../peers/projectSpans.ts";
import type { Verdict } from "./managedEvaluators.ts";
import type { QueryFilters } from "../tasks/taskDecider.ts";
import type { Granularity, ItemEvaluator, QueryMapping } from "./evaluators.ts";
import { columnOf, sampledPages, spanColumns } from "./evaluateSpans.ts";
import {
  evaluatePage,
  projectRun,
  evaluateOne,
  writePending,
  type Outcome,
  type Progress,
  type RunToWork,
} from "./runItems.ts";

const PAGE = 50;

/** What a trace/session task's run needs of its task. */
export interface UnitTask {
  project_id: string;
  sampling_rate: number | null;
  query_filters: QueryFilters | null;
}

/** A verdict on a trace or session, with the span it is written on (its root). */
type UnitVerdict = Verdict & { name: string; span_id: string };

/**
 * A variable's value in a unit: its attribute path read on the unit's spans (oldest first) that
 * match one of its filters (none named: any declared one; none declared: every span), the
 * spans without it passed over, the rest one per line. An evaluator's variable without a
 * mapping reads the attribute of its own name on every span.
 */
function unitValue(
  variable: string,
  mappings: readonly QueryMapping[],
  declared: readonly string[],
  spans: readonly SpanToEvaluate[],
): string | undefined {
  const m = mappings.find((q) => q.variable_name === variable);
  const ids = m === undefined ? [] : m.query_ids.length > 0 ? m.query_ids : declared;
  const values = spans.flatMap((s) => {
    if (ids.length > 0 && !s.matches.some((id) => ids.includes(id))) return [];
    const v = columnOf(m?.attribute_path ?? variable, spanColumns(s));
    return v === undefined ? [] : [v];
  });
  return values.length > 0 ? values.join("\n") : undefined;
}

/**
 * A project task's evaluation run with trace/session evaluators: the whole traces (one per root
 * span) or sessions of its window, newest first, those `query_filters` admits, sampled by their
 * id, `max_spans` of them at most per granularity; each evaluator's variables read across the
 * unit's spans through its query mappings, its verdict written on the unit's root span.
 */
export async function evaluateUnits(
  pool: Pool,
  spans: ProjectSpans,
  run: RunToWork,
  task: UnitTask,
  evaluators: { runnable: ItemEvaluator[]; reasons: string[] },
  progress: Progress,
): Promise<Outcome> {
  const started = projectRun(run, evaluators);
  if ("status" in started) return started;
  const { options, window } = started;
  const { runnable } = evaluators;
  const filters = Object.fromEntries(
    (task.query_filters?.filters ?? []).map((f) => [f.id, f.filter]),
  );
  const declared = Object.keys(filters);
  const write = (projectId: string, evaluations: (UnitVerdict & { item_id: string })[]) =>
    spans.record(
      run.account_id,
      projectId,
      run.task_id,
      evaluations.map(({ item_id: _, span_id, ...v }) => ({ spanId: span_id, ...v })),
    );
  if (progress.resumed) await writePending<UnitVerdict>(pool, run.id, write);
  const passes = new Map<Granularity, ItemEvaluator[]>();
  for (const e of runnable) passes.set(e.granularity, [...(passes.get(e.granularity) ?? []), e]);
  for (const [granularity, group] of passes) {
    const pages = sampledPages(
      async (after) => {
        const page = await spans.units({
          accountId: run.account_id,
          projectId: task.project_id,
          startTime: window.start,
          endTime: window.end,
          granularity,
          filters,
          expression: task.query_filters?.expression ?? "",
          after,
          limit: PAGE,
        });
        return { items: page.units, nextAfter: page.nextAfter };
      },
      (u) => u.id,
      task.sampling_rate,
      options.max_spans,
    );
    for await (const chosen of pages) {
      const items = chosen.map((u) => ({
        // A trace is its root span (a trace with two is two); a session, its id.
        id: granularity === "TRACE" ? u.rootSpanId : u.id,
        target: task.project_id,
        evaluatedBy: (e: ItemEvaluator) => u.evaluated.includes(e.name),
        verdict: async (e: ItemEvaluator): Promise<UnitVerdict> => ({
          name: e.name,
          span_id: u.rootSpanId,
          ...(await evaluateOne(e, (v) => unitValue(v, e.queryMappings ?? [], declared, u.spans))),
        }),
      }));
      const override = options.override_evaluations;
      if (!(await evaluatePage(pool, run.id, items, group, override, write, progress)))
        return { status: "STOPPED" };
    }
  }
  return { status: "COMPLETED" };
}
