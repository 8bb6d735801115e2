import { randomUUID } from "node:crypto";
import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { ItemError, type Verdict } from "./managedEvaluators.ts";
import type { ItemEvaluator } from "./evaluators.ts";
import type { Counts } from "../taskRuns/taskRunDecider.ts";

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

/**
 * A project run's options and window, or why it cannot run: no evaluator of it runs (the
 * reasons), or it has no window.
 */
export function projectRun(
  run: RunToWork,
  evaluators: { runnable: readonly unknown[]; reasons: readonly string[] },
):
  | {
      options: { override_evaluations: boolean; max_spans: number };
      window: { start: string; end: string };
    }
  | Outcome {
  const failed = noEvaluators(evaluators);
  if (failed) return failed;
  if (!run.data_start_time || !run.data_end_time)
    return { status: "FAILED", reason: "the run has no data window" };
  return {
    options: run.options as { override_evaluations: boolean; max_spans: number },
    window: { start: run.data_start_time, end: run.data_end_time },
  };
}

/** A run none of whose evaluators can run fails, with their reasons. */
export function noEvaluators(e: {
  runnable: readonly unknown[];
  reasons: readonly string[];
}): Outcome | undefined {
  return e.runnable.length === 0
    ? { status: "FAILED", reason: e.reasons.join("; ") || "the task has no evaluators" }
    : undefined;
}

/** How a run's work ended; STOPPED: it was cancelled meanwhile (its end is already recorded). */
export type Outcome =
  { status: "COMPLETED" } | { status: "FAILED"; reason: string } | { status: "STOPPED" };

/** One item's outcome with one evaluator: true evaluated, false its error, null skipped. */
export interface ItemOutcome {
  item_id: string;
  evaluator_id: string;
  ok: boolean | null;
  /**
   * Where the result goes (an experiment, a project), with the result, for items done: an
   * evaluator's verdict, or a generation's output.
   */
  target?: string;
  verdict?: object;
}

/** A verdict on its way to the item's service. */
export interface PendingEvaluation extends Verdict {
  item_id: string;
  name: string;
}

/** Runs `task` on every item, `parallel` at a time. */
async function eachLimited<T>(
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

/**
 * What a run's pages report to: `report` adds a page's counts (of the items it recorded) to the
 * run's progress and answers false once the run is no longer RUNNING; `stopped` aborts when the
 * run's worker stops it (a cancel, a deletion), and with it every call the run has out.
 */
export interface Progress {
  report(page: Counts): Promise<boolean>;
  stopped: AbortSignal;
  /**
   * Whether the run was worked before this worker took it (claimed RUNNING: a dead worker's
   * items and unwritten verdicts may be recorded). A fresh run has none, so its pages look
   * nothing up: each item of its pages is new to it.
   */
  resumed: boolean;
}

/** Items of one page worked at once (provider calls are limited per integration too). */
const PARALLEL = 16;

/** One item's job of a page: its result goes to `target` (an experiment, a project). */
export interface PageJob<T> {
  item_id: string;
  evaluator_id: string;
  target: string;
  run(): Promise<T>;
}

/**
 * A run's pages' writes, one at a time and in order, each while the page after it is evaluated
 * and recorded (its items are other items: a write of one page changes nothing the next reads
 * or records). A page is written only once the one before was written and its progress report
 * found the run going, so a run stopped during a write evaluates at most the one page it was
 * busy with and writes nothing after the stop is seen, as when the pages went one after another.
 * The marks of what was written, and each page's record, go on beside the next page's write;
 * the run ends only once they are done, whether or not their page was written.
 */
export class PageWrites {
  #last: Promise<boolean> = Promise.resolve(true);
  readonly #marks: Promise<unknown>[] = [];

  /**
   * Queues a page's write after the page before's: `write` writes it and answers the marks
   * under way, then progress is reported (`report`, false once the run stopped). Answers when
   * the page before is written and reported: whether the run went on after it.
   */
  after(
    write: () => Promise<Promise<unknown>[]>,
    report: () => Promise<boolean>,
  ): Promise<boolean> {
    const before = this.#last;
    const mine = before.then(async (going) => {
      if (!going) return false;
      const marks = await write();
      for (const m of marks) m.catch(() => undefined);
      this.#marks.push(...marks);
      return report();
    });
    // Its failure is the caller's through `done`, or through the next page's `after`.
    mine.catch(() => undefined);
    this.#last = mine;
    return before;
  }

  /** Waits for `work` (a page's record) before the run ends, even if its page is never written. */
  keep(work: Promise<unknown>): void {
    work.catch(() => undefined);
    this.#marks.push(work);
  }

  /** The last page written, reported and marked: whether the run went on after it. */
  async done(): Promise<boolean> {
    const going = await this.#last;
    await Promise.all(this.#marks);
    return going;
  }

  /** Waits for the writes under way, whatever they end in (a run failing leaves none behind). */
  async settled(): Promise<void> {
    await this.#last.catch(() => undefined);
    await Promise.allSettled(this.#marks);
  }
}

/**
 * The end every page of a run shares: the jobs `PARALLEL` at a time (a job that throws is its
 * item's error, never the run's), their outcomes recorded with those the page `settled`
 * already (skipped items), the page's results written, and progress reported. False once
 * the run is no longer RUNNING (cancelled) or its worker stopped it: the work stops there. A
 * job cut short by the stop was not evaluated, so it is no item's error. With `writes`, the
 * page is written after the page before, and this answers once that one is written and
 * reported (the caller then works the next page while this one is written; `writes.done()`
 * answers for the last).
 */
export async function workPage<T extends object>(
  pool: Pool,
  runId: string,
  settled: readonly ItemOutcome[],
  jobs: readonly PageJob<T>[],
  write: (target: string, results: (T & { item_id: string })[]) => Promise<void>,
  progress: Progress,
  writes?: PageWrites,
): Promise<boolean> {
  const items = [...settled];
  await eachLimited(jobs, PARALLEL, async (job) => {
    const outcome = { item_id: job.item_id, evaluator_id: job.evaluator_id };
    if (progress.stopped.aborted) return;
    try {
      const verdict = await job.run();
      items.push({ ...outcome, ok: true, target: job.target, verdict });
    } catch {
      if (!progress.stopped.aborted) items.push({ ...outcome, ok: false });
    }
  });
  const page = randomUUID();
  // The page is recorded while it is written: the record is what a take-over resumes from and
  // where the counts come from, the write what users see, and neither waits for the other. An
  // item another worker recorded first (one whose lease this worker outlived) is written by
  // both, the same evaluator's verdict twice, and counted once, by whoever recorded it.
  const recording = recordItems(pool, runId, page, items);
  recording.catch(() => undefined);
  const byTarget = new Map<string, ItemOutcome[]>();
  for (const i of items) {
    if (!i.verdict) continue;
    const kept = byTarget.get(i.target!);
    if (kept) kept.push(i);
    else byTarget.set(i.target!, [i]);
  }
  // The page is marked written once all of it is (one row), while progress is reported: a mark
  // lost to a crash only means writing the same values again on the take-over.
  const writeOut = async () => {
    for (const [target, kept] of byTarget)
      for (let i = 0; i < kept.length; i += WRITE_CHUNK)
        await write(
          target,
          kept.slice(i, i + WRITE_CHUNK).map((r) => ({ item_id: r.item_id, ...(r.verdict as T) })),
        );
    return byTarget.size > 0 ? [markPageWritten(pool, runId, page)] : [];
  };
  const report = async () => {
    const counts = countsOf(items, await recording);
    return !progress.stopped.aborted && progress.report(counts);
  };
  if (writes) {
    writes.keep(recording);
    return writes.after(writeOut, report);
  }
  const marks = await writeOut();
  const [going] = await Promise.all([report(), ...marks]);
  return going;
}

/** The counts of the items recorded now (`recorded`: recordItems' answer). */
function countsOf(items: readonly ItemOutcome[], recorded: (key: string) => boolean): Counts {
  const counts: Counts = { num_successes: 0, num_errors: 0, num_skipped: 0 };
  for (const i of items) {
    if (!recorded(`${i.item_id}/${i.evaluator_id}`)) continue;
    if (i.ok === null) counts.num_skipped++;
    else if (i.ok) counts.num_successes++;
    else counts.num_errors++;
  }
  return counts;
}

// A page's items from its columns as arrays; built once (a statement's text keys its prepared
// name, tracedQuery).
const RECORD_ITEMS = `insert into task_run_items (run_id, item_id, evaluator_id, ok, target, verdict, page)
  select $1, x.item_id, x.evaluator_id, x.ok, x.target, x.verdict, $2
    from unnest($3::text[], $4::uuid[], $5::boolean[], $6::text[], $7::jsonb[])
      as x(item_id, evaluator_id, ok, target, verdict)`;
const RECORD_ITEMS_AFTER_OTHERS = `${RECORD_ITEMS}
  on conflict do nothing returning item_id || '/' || evaluator_id as key`;

/**
 * What a page did, kept per run: what a resumed run skips, and where the counts come from.
 * Answers whether an `item/evaluator` was recorded now (not by another worker first): all of
 * them, unless some were there before, when the ones recorded now come back. They are recorded
 * under the page's id, which marks them written at once (markPageWritten).
 *
 * A plain insert of the page's columns as arrays: `on conflict` costs a speculative insertion
 * per row and `jsonb_to_recordset` a parse of the page's whole text (together ~40% of 500
 * rows' insert). Only a worker whose lease another one outlived meets rows already there; the
 * insert then fails whole, and the same rows go in again with `on conflict do nothing`.
 */
async function recordItems(
  pool: Pool,
  runId: string,
  page: string,
  items: readonly ItemOutcome[],
): Promise<(key: string) => boolean> {
  if (items.length === 0) return () => false;
  const columns = [
    runId,
    page,
    items.map((i) => i.item_id),
    items.map((i) => i.evaluator_id),
    items.map((i) => i.ok),
    items.map((i) => i.target ?? null),
    items.map((i) => (i.verdict === undefined ? null : JSON.stringify(i.verdict))),
  ];
  try {
    await tracedQuery(pool, "items evaluated", RECORD_ITEMS, columns);
    return () => true;
  } catch (err) {
    if ((err as { code?: unknown }).code !== "23505") throw err;
  }
  const res = await tracedQuery<{ key: string }>(
    pool,
    "items evaluated, some before",
    RECORD_ITEMS_AFTER_OTHERS,
    columns,
  );
  const now = new Set(res.rows.map((r) => r.key));
  return (key) => now.has(key);
}

/** A page's results are all written to their item's service: a take-over does not write them again. */
async function markPageWritten(pool: Pool, runId: string, page: string): Promise<void> {
  await tracedQuery(
    pool,
    "page written",
    "insert into task_run_pages_written (run_id, page) values ($1, $2) on conflict do nothing",
    [runId, page],
  );
}

/** Results written per call to an item's service. */
const WRITE_CHUNK = 500;

/** Results written to their item's service, one by one (a take-over's writes of what a dead worker kept). */
async function markWritten(
  pool: Pool,
  runId: string,
  written: readonly { item_id: string; evaluator_id: string }[],
): Promise<void> {
  await tracedQuery(
    pool,
    "verdicts written",
    `update task_run_items set written = true
      where run_id = $1 and (item_id, evaluator_id) in
        (select * from unnest($2::text[], $3::uuid[]))`,
    [runId, written.map((r) => r.item_id), written.map((r) => r.evaluator_id)],
  );
}

/**
 * Writes the run's results not written yet (a dead worker's: a run taken over starts with
 * this), per target, to the item's service, then marks them written: a write repeated after a
 * crash is an upsert of the same values.
 */
export async function writePending<T extends object = Verdict & { name: string }>(
  pool: Pool,
  runId: string,
  write: (target: string, results: (T & { item_id: string })[]) => Promise<void>,
): Promise<void> {
  const res = await tracedQuery<{
    target: string;
    item_id: string;
    evaluator_id: string;
    verdict: T;
  }>(
    pool,
    "verdicts to write",
    `select target, item_id, evaluator_id, verdict from task_run_items
      where run_id = $1 and verdict is not null and not written
        and (page is null or page not in (select page from task_run_pages_written where run_id = $1))
      order by target`,
    [runId],
  );
  const byTarget = new Map<string, typeof res.rows>();
  for (const r of res.rows) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
  for (const [target, rows] of byTarget) {
    for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
      const chunk = rows.slice(i, i + WRITE_CHUNK);
      await write(
        target,
        chunk.map((r) => ({ item_id: r.item_id, ...r.verdict })),
      );
      await markWritten(pool, runId, chunk);
    }
  }
}

/** One item of an evaluation run's page, as each kind of run reads it. */
export interface EvaluatedItem<T> {
  id: string;
  /** Where its verdicts go (an experiment, a project). */
  target: string;
  /** Whether an earlier run already gave it this evaluator's verdict. */
  evaluatedBy(e: ItemEvaluator): boolean;
  verdict(e: ItemEvaluator): Promise<T>;
}

/**
 * One page of an evaluation run, whatever its items: each item with each evaluator once — what
 * this run already did (a run resumed by another worker) passed over, an item an earlier run
 * evaluated skipped unless the trigger overrides — then worked as `workPage` does (its write
 * queued on `writes`, when given). False once the run stopped.
 */
export async function evaluatePage<T extends object>(
  pool: Pool,
  runId: string,
  items: readonly EvaluatedItem<T>[],
  evaluators: readonly ItemEvaluator[],
  override: boolean,
  write: (target: string, results: (T & { item_id: string })[]) => Promise<void>,
  progress: Progress,
  writes?: PageWrites,
): Promise<boolean> {
  const seen = progress.resumed
    ? await doneItems(
        pool,
        runId,
        items.map((i) => i.id),
      )
    : new Set<string>();
  const skipped: ItemOutcome[] = [];
  const jobs: PageJob<T>[] = [];
  for (const item of items)
    for (const e of evaluators) {
      const outcome = { item_id: item.id, evaluator_id: e.evaluatorId };
      if (seen.has(`${item.id}/${e.evaluatorId}`)) continue;
      if (!override && item.evaluatedBy(e)) skipped.push({ ...outcome, ok: null });
      else jobs.push({ ...outcome, target: item.target, run: () => item.verdict(e) });
    }
  return workPage(pool, runId, skipped, jobs, write, progress, writes);
}

/** `item/evaluator` of what this run already did with these items (a resumed run skips them). */
export async function doneItems(
  pool: Pool,
  runId: string,
  itemIds: readonly string[],
): Promise<Set<string>> {
  const res = await tracedQuery<{ item_id: string; evaluator_id: string }>(
    pool,
    "items done",
    "select item_id, evaluator_id from task_run_items where run_id = $1 and item_id = any($2)",
    [runId, itemIds],
  );
  return new Set(res.rows.map((d) => `${d.item_id}/${d.evaluator_id}`));
}

/** One item's verdict: its variables read through the evaluator's column mappings, then run. */
export async function evaluateOne(
  e: ItemEvaluator,
  column: (name: string) => string | undefined,
): Promise<Verdict> {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const v of e.variables) {
    const value = column(e.columnMappings?.[v] ?? v);
    if (value === undefined) missing.push(v);
    else values[v] = value;
  }
  if (missing.length > 0) throw new ItemError(`missing ${missing.join(", ")}`);
  for (const v of e.optionalVariables ?? []) {
    const value = column(e.columnMappings?.[v] ?? v);
    if (value !== undefined) values[v] = value;
  }
  return e.evaluate(values);
}
