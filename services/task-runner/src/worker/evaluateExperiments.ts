import type { Pool } from "pg";
import type { RunsToEvaluateResponse } from "@argus/proto/dataset/v1/dataset";
import type { ExperimentRuns } from "../peers/experimentRuns.ts";
import type { ItemEvaluator } from "./evaluators.ts";
import { text } from "./evaluateSpans.ts";
import {
  evaluatePage,
  noEvaluators,
  evaluateOne,
  PageWrites,
  writePending,
  type Outcome,
  type Progress,
  type PendingEvaluation,
  type RunToWork,
} from "./runItems.ts";

/**
 * Runs a page: the most the dataset service sends at once (it cuts a page of large runs short
 * by their bytes), so a run of 1000 is 2 pages' round trips, not 5.
 */
export const RUNS_PAGE = 500;

interface Item {
  output: string;
  fields: Record<string, unknown>;
  example: Record<string, unknown>;
}

/** A page of an experiment's runs after `after`; a read ahead that is never awaited fails quietly. */
function readRuns(
  runs: ExperimentRuns,
  run: RunToWork,
  experimentId: string,
  after: string,
): Promise<RunsToEvaluateResponse> {
  const page = runs.page(run.account_id, experimentId, after, RUNS_PAGE);
  page.catch(() => undefined);
  return page;
}

/**
 * The first page of a dataset task's run, read while the run's start is recorded: a read, which
 * evaluates nothing (evaluateExperiments takes it as its first).
 */
export function firstRunsPage(
  runs: ExperimentRuns,
  run: RunToWork,
): Promise<RunsToEvaluateResponse> | undefined {
  const first = (run.options as { experiment_ids?: string[] }).experiment_ids?.[0];
  return first === undefined ? undefined : readRuns(runs, run, first, "");
}

/** A column's value: `output` is the run's; any other, the run's field, else the example's. */
function valueOf(column: string, run: Item): string | undefined {
  if (column === "output") return run.output;
  return text(run.fields[column]) ?? text(run.example[column]);
}

/**
 * A dataset task's evaluation run over experiment runs: page by page, each item and evaluator
 * once (items already recorded for this run — a run resumed by another worker — are skipped),
 * evaluations written to the runs in one call a page, progress after each page; a page is
 * evaluated and recorded while the one before is written (PageWrites). An item already
 * labeled by an earlier run is skipped unless the trigger asked to override; an item an
 * evaluator fails on is that item's error, never the run's.
 */
export async function evaluateExperiments(
  pool: Pool,
  runs: ExperimentRuns,
  run: RunToWork,
  evaluators: { runnable: ItemEvaluator[]; reasons: string[] },
  progress: Progress,
  first?: Promise<RunsToEvaluateResponse>,
): Promise<Outcome> {
  const options = run.options as { experiment_ids: string[]; override_evaluations: boolean };
  const failed = noEvaluators(evaluators);
  if (failed) return failed;
  const { runnable } = evaluators;
  const write = (experimentId: string, evaluations: PendingEvaluation[]) =>
    runs.record(
      run.account_id,
      experimentId,
      run.task_id,
      evaluations.map(({ item_id, ...v }) => ({ runId: item_id, ...v })),
    );
  // A dead worker's verdicts first: kept, not yet written.
  if (progress.resumed) await writePending(pool, run.id, write);
  // Read ahead: a run that stops before its turn leaves it unread.
  const read = (experimentId: string, after: string) => readRuns(runs, run, experimentId, after);
  const writes = new PageWrites();
  try {
    for (const [i, experimentId] of options.experiment_ids.entries()) {
      let next = (i === 0 && first) || read(experimentId, "");
      for (;;) {
        const page = await next;
        const after = page.page?.nextAfter ?? "";
        // The next page is read while this one is evaluated and written: it holds other runs,
        // which this page's writes do not touch.
        if (after !== "") next = read(experimentId, after);
        const items = page.runs.map((r) => {
          const item: Item = {
            output: r.output,
            fields: JSON.parse(r.fieldsJson || "{}") as Record<string, unknown>,
            example: JSON.parse(r.exampleFieldsJson || "{}") as Record<string, unknown>,
          };
          return {
            id: r.id,
            target: experimentId,
            evaluatedBy: (e: ItemEvaluator) => {
              const labeled = item.fields[`eval.${e.name}.label`];
              return labeled !== undefined && labeled !== null;
            },
            verdict: async (e: ItemEvaluator) => ({
              name: e.name,
              ...(await evaluateOne(e, (column) => valueOf(column, item))),
            }),
          };
        });
        const override = options.override_evaluations;
        if (!(await evaluatePage(pool, run.id, items, runnable, override, write, progress, writes)))
          return { status: "STOPPED" };
        if (after === "") break;
      }
    }
    return (await writes.done()) ? { status: "COMPLETED" } : { status: "STOPPED" };
  } finally {
    // Stopped or failed, the run ends once the writes under way are done: none goes on after.
    await writes.settled();
  }
}
