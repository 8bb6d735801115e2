import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { RunEvaluation } from "@argus/proto/dataset/v1/dataset";
import type { ExperimentRuns } from "../adapters/experimentRuns.ts";
import {
  ItemError,
  evaluateManaged,
  managedConfigOf,
  type ManagedConfig,
} from "../domain/managed.ts";
import type { Outcome, RunToWork } from "./worker.ts";

/** An evaluator as the run fixed it at trigger time. */
interface RunEvaluator {
  evaluator_id: string;
  config: Record<string, unknown>;
  column_mappings: Record<string, string> | null;
}

const PAGE = 200;

const text = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === "string" ? v : JSON.stringify(v);

/** A variable's value: `output` is the run's; a column, the run's field, else the example's. */
function valueOf(
  variable: string,
  mappings: Record<string, string> | null,
  run: { output: string; fields: Record<string, unknown>; example: Record<string, unknown> },
): string | undefined {
  const column = mappings?.[variable] ?? variable;
  if (column === "output") return run.output;
  return text(run.fields[column]) ?? text(run.example[column]);
}

/**
 * A dataset task's evaluation run over experiment runs, with managed code evaluators: page by
 * page, each item and evaluator once (items already recorded for this run — a run resumed by
 * another worker — are skipped), evaluations written to the runs in one call a page, progress
 * after each page. An item already labeled by an earlier run is skipped unless the trigger
 * asked to override.
 */
export async function evaluateExperiments(
  pool: Pool,
  runs: ExperimentRuns,
  run: RunToWork,
  progress: () => Promise<boolean>,
): Promise<Outcome> {
  const options = run.options as {
    experiment_ids: string[];
    override_evaluations: boolean;
    evaluators: RunEvaluator[];
  };
  const evaluators = options.evaluators.map((e) => ({ ...e, managed: managedConfigOf(e.config) }));
  const runnable = evaluators.filter(
    (e): e is typeof e & { managed: ManagedConfig } => typeof e.managed !== "string",
  );
  if (runnable.length === 0)
    return {
      status: "FAILED",
      reason: evaluators.map((e) => e.managed).join("; ") || "the task has no evaluators",
    };
  for (const experimentId of options.experiment_ids) {
    let after = "";
    do {
      const page = await runs.page(run.account_id, experimentId, after, PAGE);
      const ids = page.runs.map((r) => r.id);
      const done = await tracedQuery<{ item_id: string; evaluator_id: string }>(
        pool,
        "items done",
        "select item_id, evaluator_id from task_run_items where run_id = $1 and item_id = any($2)",
        [run.id, ids],
      );
      const seen = new Set(done.rows.map((d) => `${d.item_id}/${d.evaluator_id}`));
      const evaluations: RunEvaluation[] = [];
      const items: { item_id: string; evaluator_id: string; ok: boolean | null }[] = [];
      for (const r of page.runs) {
        const item = {
          output: r.output,
          fields: JSON.parse(r.fieldsJson || "{}") as Record<string, unknown>,
          example: JSON.parse(r.exampleFieldsJson || "{}") as Record<string, unknown>,
        };
        for (const e of runnable) {
          if (seen.has(`${r.id}/${e.evaluator_id}`)) continue;
          const name = e.managed.name;
          const labeled = item.fields[`eval.${name}.label`];
          if (!options.override_evaluations && labeled !== undefined && labeled !== null) {
            items.push({ item_id: r.id, evaluator_id: e.evaluator_id, ok: null });
            continue;
          }
          try {
            const values = e.managed.variables.map((v) => valueOf(v, e.column_mappings, item));
            const missing = e.managed.variables.filter((_, i) => values[i] === undefined);
            if (missing.length > 0) throw new ItemError(`missing ${missing.join(", ")}`);
            const verdict = evaluateManaged(e.managed, values as string[]);
            evaluations.push({ runId: r.id, name, ...verdict });
            items.push({ item_id: r.id, evaluator_id: e.evaluator_id, ok: true });
          } catch {
            items.push({ item_id: r.id, evaluator_id: e.evaluator_id, ok: false });
          }
        }
      }
      if (evaluations.length > 0)
        await runs.record(run.account_id, experimentId, run.task_id, evaluations);
      if (items.length > 0)
        await tracedQuery(
          pool,
          "items evaluated",
          `insert into task_run_items (run_id, item_id, evaluator_id, ok)
           select $1, x.item_id, x.evaluator_id, x.ok
             from jsonb_to_recordset($2::jsonb) as x(item_id text, evaluator_id uuid, ok boolean)
           on conflict do nothing`,
          [run.id, JSON.stringify(items)],
        );
      if (!(await progress())) return { status: "STOPPED" };
      after = page.page?.nextAfter ?? "";
    } while (after !== "");
  }
  return { status: "COMPLETED" };
}
