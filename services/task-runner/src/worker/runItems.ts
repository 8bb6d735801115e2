import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";

/** A run as a worker claimed it. */
export interface RunToWork {
  id: string;
  task_id: string;
  account_id: string;
  space_id: string;
  status: string;
  options: Record<string, unknown>;
  /** RFC 3339 (project tasks); null for dataset tasks. */
  data_start_time: string | null;
  data_end_time: string | null;
}

/** How a run's work ended; STOPPED: it was cancelled meanwhile (its end is already recorded). */
export type Outcome =
  { status: "COMPLETED" } | { status: "FAILED"; reason: string } | { status: "STOPPED" };

/** One item's outcome with one evaluator: true evaluated, false its error, null skipped. */
export interface ItemOutcome {
  item_id: string;
  evaluator_id: string;
  ok: boolean | null;
}

/** Runs `task` on every item, `parallel` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  parallel: number,
  task: (t: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

/** What a page did, kept per run: what a resumed run skips, and where the counts come from. */
export async function recordItems(
  pool: Pool,
  runId: string,
  items: readonly ItemOutcome[],
): Promise<void> {
  if (items.length === 0) return;
  await tracedQuery(
    pool,
    "items evaluated",
    `insert into task_run_items (run_id, item_id, evaluator_id, ok)
     select $1, x.item_id, x.evaluator_id, x.ok
       from jsonb_to_recordset($2::jsonb) as x(item_id text, evaluator_id uuid, ok boolean)
     on conflict do nothing`,
    [runId, JSON.stringify(items)],
  );
}
