import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessFactsMigration } from "@argus/spaces";
import { loadMigrations, migrate, migrationsDirOf } from "@argus/service-host";
import { createTestDatabase, type TestDatabase } from "@argus/testkit";
import type { RunEvaluation, RunsToEvaluateResponse } from "@argus/proto/dataset/v1/dataset";
import type { ExperimentRuns } from "../src/peers/experimentRuns.ts";
import { evaluateExperiments, RUNS_PAGE } from "../src/worker/evaluateExperiments.ts";
import type { ItemEvaluator } from "../src/worker/evaluators.ts";
import { evaluateManaged } from "../src/worker/managedEvaluators.ts";
import type { Progress, RunToWork } from "../src/worker/runItems.ts";
import type { Counts } from "../src/taskRuns/taskRunDecider.ts";
import { projector } from "@argus/eventstore";
import { taskProjections } from "../src/tasks/taskProjection.ts";

// A dataset task's run over experiments of every size around the page: the task runner's own
// tables in a real Postgres, the dataset service's side of the call (a page of runs after a
// cursor, evaluations recorded) answered from memory, as runsToEvaluate pages them.

let db: TestDatabase;
let pool: pg.Pool;
const schema = "tasks_pages";

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, options: `-c search_path=${schema}`, max: 4 });
  // Dropping the database at the end ends the connections still idle: not this test's error.
  pool.on("error", () => undefined);
  await migrate(pool, {
    schema,
    migrations: [...loadMigrations(migrationsDirOf("task-runner")), accessFactsMigration(2)].sort(
      (a, b) => a.id.localeCompare(b.id),
    ),
  });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

const evaluatorId = randomUUID();
const exactMatch: ItemEvaluator = {
  evaluatorId,
  name: "exact_match",
  variables: ["output", "expected"],
  columnMappings: null,
  granularity: "SPAN",
  queryMappings: null,
  evaluate: async (v) =>
    evaluateManaged(
      { name: "exact_match", managed_evaluator: "EXACT_MATCH", variables: [], static_params: [] },
      [v.output!, v.expected!],
    ),
};

interface FakeRun {
  id: string;
  output: string;
  expected: string;
}

/** The dataset service's side: pages of runs in id order, and each call, in order. */
function experimentOf(size: number) {
  const experimentId = randomUUID();
  const runs: FakeRun[] = Array.from({ length: size }, (_, i) => ({
    id: randomUUID(),
    output: i % 3 ? "no" : `a${i}`,
    expected: `a${i}`,
  })).sort((a, b) => a.id.localeCompare(b.id));
  const calls: string[] = [];
  const recorded: RunEvaluation[][] = [];
  const peer: ExperimentRuns = {
    async page(_account, experiment, after, limit): Promise<RunsToEvaluateResponse> {
      expect(experiment).toBe(experimentId);
      calls.push(`page after ${after || "start"}`);
      const rest = runs.filter((r) => r.id > after);
      const page = rest.slice(0, limit);
      return {
        experimentId,
        datasetId: "",
        spaceId: "",
        runs: page.map((r) => ({
          id: r.id,
          exampleId: "",
          output: r.output,
          fieldsJson: "{}",
          exampleFieldsJson: JSON.stringify({ expected: r.expected }),
        })),
        page: { nextAfter: rest.length > limit ? page[page.length - 1]!.id : "" },
      };
    },
    async record(_account, experiment, _task, evaluations) {
      expect(experiment).toBe(experimentId);
      calls.push(`record ${evaluations.length}`);
      recorded.push(evaluations);
    },
    examples: () => Promise.reject(new Error("not a RUN_EXPERIMENT run")),
    startExperiment: () => Promise.reject(new Error("not a RUN_EXPERIMENT run")),
    recordOutputs: () => Promise.reject(new Error("not a RUN_EXPERIMENT run")),
  };
  return { experimentId, runs, calls, recorded, peer };
}

/** A RUNNING run of a dataset task over `experimentId`, as a worker claims it. */
async function runOver(experimentId: string): Promise<RunToWork> {
  const ids = { task: randomUUID(), run: randomUUID(), account: randomUUID(), space: randomUUID() };
  await pool.query(
    `insert into tasks (id, account_id, space_id, task_type, name, dataset_id, is_continuous,
       evaluators, experiment_ids, created_by_user_id, created_at, updated_at)
     values ($1, $2, $3, 'CODE_EVALUATION', 'task', $4, false, '[]', array[$5::uuid], 'u', now(), now())`,
    [ids.task, ids.account, ids.space, randomUUID(), experimentId],
  );
  const options = { experiment_ids: [experimentId], override_evaluations: true };
  await pool.query(
    `insert into task_runs (id, task_id, account_id, space_id, status, options, created_by_user_id,
       created_at) values ($1, $2, $3, $4, 'RUNNING', $5, 'u', now())`,
    [ids.run, ids.task, ids.account, ids.space, JSON.stringify(options)],
  );
  return {
    id: ids.run,
    task_id: ids.task,
    account_id: ids.account,
    space_id: ids.space,
    status: "RUNNING",
    options,
    data_start_time: null,
    data_end_time: null,
  };
}

const progressOf = (run: RunToWork, resumed: boolean): Progress => ({
  resumed,
  stopped: new AbortController().signal,
  report: async () => true,
});

/** The run worked by EXACT_MATCH over `e`'s runs: fresh, or taken over (`resumed`). */
const evaluate = (e: ReturnType<typeof experimentOf>, run: RunToWork, resumed = false) =>
  evaluateExperiments(
    pool,
    e.peer,
    run,
    { runnable: [exactMatch], reasons: [] },
    progressOf(run, resumed),
  );

/** Items another worker kept for `run`: each experiment run's verdict labelled `label`. */
async function keptItems(
  run: RunToWork,
  experimentId: string,
  items: readonly { runId: string; label: string; written: boolean }[],
): Promise<void> {
  await pool.query(
    `insert into task_run_items (run_id, item_id, evaluator_id, ok, target, verdict, written)
     select $1, x.item, $2, true, $3, jsonb_build_object('name', 'exact_match', 'label', x.label,
                                                        'score', 1, 'explanation', ''), x.written
       from unnest($4::text[], $5::text[], $6::boolean[]) as x(item, label, written)`,
    [
      run.id,
      evaluatorId,
      experimentId,
      items.map((i) => i.runId),
      items.map((i) => i.label),
      items.map((i) => i.written),
    ],
  );
}

/** A run's items: how many, evaluated, and written (flagged, or their page marked written). */
const itemsOf = async (runId: string) =>
  (
    await pool.query<{ n: number; ok: number; written: number }>(
      `select count(*)::int as n, count(*) filter (where ok)::int as ok,
              count(*) filter (where written or page in (
                select page from task_run_pages_written w where w.run_id = i.run_id))::int as written
         from task_run_items i where run_id = $1`,
      [runId],
    )
  ).rows[0]!;

describe("a dataset task's run, page by page", () => {
  it.each([0, 1, RUNS_PAGE - 1, RUNS_PAGE, RUNS_PAGE + 1, 2 * RUNS_PAGE + 1])(
    "over %i runs: each run read, evaluated, recorded and written once, a write a page",
    async (size) => {
      const e = experimentOf(size);
      const run = await runOver(e.experimentId);
      const outcome = await evaluate(e, run);
      expect(outcome).toEqual({ status: "COMPLETED" });
      const pages = Math.max(1, Math.ceil(size / RUNS_PAGE));
      expect(e.calls.filter((c) => c.startsWith("page"))).toHaveLength(pages);
      expect(e.recorded.map((w) => w.length)).toEqual(
        Array.from({ length: Math.ceil(size / RUNS_PAGE) }, (_, i) =>
          Math.min(RUNS_PAGE, size - i * RUNS_PAGE),
        ),
      );
      const written = e.recorded.flat();
      expect(new Set(written.map((w) => w.runId)).size).toBe(size);
      expect(written.map((w) => w.runId).sort()).toEqual(e.runs.map((r) => r.id));
      for (const w of written) {
        const r = e.runs.find((x) => x.id === w.runId)!;
        expect(w.label).toBe(r.output === r.expected ? "true" : "false");
      }
      const matching = e.runs.filter((r) => r.output === r.expected).length;
      expect(await itemsOf(run.id)).toEqual({ n: size, ok: size, written: size });
      expect(written.filter((w) => w.label === "true")).toHaveLength(matching);
    },
  );

  it("reads the next page while the one before is evaluated and written", async () => {
    const e = experimentOf(RUNS_PAGE + 1);
    const run = await runOver(e.experimentId);
    await evaluate(e, run);
    expect(e.calls).toEqual([
      "page after start",
      `page after ${e.runs[RUNS_PAGE - 1]!.id}`,
      `record ${RUNS_PAGE}`,
      "record 1",
    ]);
  });

  it("an item another worker recorded first is written by both, and counted by the other alone", async () => {
    const e = experimentOf(3);
    const run = await runOver(e.experimentId);
    const other = e.runs[1]!;
    await keptItems(run, e.experimentId, [{ runId: other.id, label: "other", written: false }]);
    // As a fresh run (one whose lease another worker took over): it does not know of the other
    // worker's item, evaluates it, records it in vain (the other's row stays), and writes its
    // page whole while recording it; its report counts the two it recorded.
    const reported: Counts[] = [];
    const outcome = await evaluateExperiments(
      pool,
      e.peer,
      run,
      { runnable: [exactMatch], reasons: [] },
      { ...progressOf(run, false), report: async (c) => (reported.push(c), true) },
    );
    expect(outcome).toEqual({ status: "COMPLETED" });
    expect(e.recorded.flat().map((w) => w.runId)).toEqual(e.runs.map((r) => r.id));
    expect(reported).toEqual([{ num_successes: 2, num_errors: 0, num_skipped: 0 }]);
    expect(await itemsOf(run.id)).toEqual({ n: 3, ok: 3, written: 2 });
  });

  it("a run taken over writes what the dead worker kept first, and evaluates only what it did not", async () => {
    const e = experimentOf(RUNS_PAGE + 2);
    const run = await runOver(e.experimentId);
    // The dead worker's: the first run evaluated and written, the second kept but not written.
    const [first, second] = e.runs;
    await keptItems(run, e.experimentId, [
      { runId: first!.id, label: "kept", written: true },
      { runId: second!.id, label: "kept", written: false },
    ]);
    const outcome = await evaluate(e, run, true);
    expect(outcome).toEqual({ status: "COMPLETED" });
    // The kept verdict as it was kept, then the rest, each once; the first run not again.
    expect(e.recorded[0]).toEqual([
      { runId: second!.id, name: "exact_match", label: "kept", score: 1, explanation: "" },
    ]);
    const rest = e.recorded.slice(1).flat();
    expect(rest.map((w) => w.runId).sort()).toEqual(e.runs.slice(2).map((r) => r.id));
    expect(await itemsOf(run.id)).toMatchObject({ n: RUNS_PAGE + 2, written: RUNS_PAGE + 2 });
  });

  it("evaluates and records a page while the one before is written, and writes them in order", async () => {
    const e = experimentOf(2 * RUNS_PAGE + 1);
    const run = await runOver(e.experimentId);
    // The first page's write is held until the second page is recorded.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const record = e.peer.record.bind(e.peer);
    const recordedWhileHeld: number[] = [];
    e.peer.record = async (...args) => {
      if (e.recorded.length === 0) {
        const poll = setInterval(() => {
          void itemsOf(run.id).then(({ n }) => {
            if (n >= 2 * RUNS_PAGE) {
              recordedWhileHeld.push(n);
              release();
            }
          });
        }, 5);
        await held;
        clearInterval(poll);
      }
      await record(...args);
    };
    const outcome = await evaluate(e, run);
    expect(outcome).toEqual({ status: "COMPLETED" });
    expect(recordedWhileHeld.length).toBeGreaterThan(0);
    expect(e.calls.filter((c) => c.startsWith("record"))).toEqual([
      `record ${RUNS_PAGE}`,
      `record ${RUNS_PAGE}`,
      "record 1",
    ]);
    // In page order: each write holds the runs after the one before's.
    const firsts = e.recorded.map((w) => w[0]!.runId);
    expect(firsts).toEqual([e.runs[0]!.id, e.runs[RUNS_PAGE]!.id, e.runs[2 * RUNS_PAGE]!.id]);
    expect(await itemsOf(run.id)).toEqual({
      n: 2 * RUNS_PAGE + 1,
      ok: 2 * RUNS_PAGE + 1,
      written: 2 * RUNS_PAGE + 1,
    });
  });

  it("writes nothing after the report that finds the run stopped, and ends once the page kept is recorded", async () => {
    const e = experimentOf(2 * RUNS_PAGE + 1);
    const run = await runOver(e.experimentId);
    // The second page's record waits on another transaction's (uncommitted) row for its first
    // item, let go only after the stop is reported: the run must not end before that record.
    const other = await pool.connect();
    await other.query("begin");
    await other.query(
      `insert into task_run_items (run_id, item_id, evaluator_id, ok, page)
       values ($1, $2, $3, false, $4)`,
      [run.id, e.runs[RUNS_PAGE]!.id, evaluatorId, randomUUID()],
    );
    // Cancelled while the first page was written: its report says so.
    let reports = 0;
    const outcome = await evaluateExperiments(
      pool,
      e.peer,
      run,
      { runnable: [exactMatch], reasons: [] },
      {
        resumed: false,
        stopped: new AbortController().signal,
        report: async () => {
          reports++;
          setTimeout(() => void other.query("rollback").finally(() => other.release()), 200);
          return false;
        },
      },
    );
    expect(outcome).toEqual({ status: "STOPPED" });
    expect(reports).toBe(1);
    // The first page written; the second, evaluated meanwhile, kept but not written; no third.
    expect(e.calls.filter((c) => c.startsWith("record"))).toEqual([`record ${RUNS_PAGE}`]);
    expect(await itemsOf(run.id)).toEqual({
      n: 2 * RUNS_PAGE,
      ok: 2 * RUNS_PAGE,
      written: RUNS_PAGE,
    });
  });

  it("a run taken over writes again a page its dead worker recorded but did not mark written", async () => {
    const e = experimentOf(3);
    const run = await runOver(e.experimentId);
    const [first, second, third] = e.runs;
    // The dead worker's two pages: one marked written, one not (it died during its write).
    const page = async (runId: string, label: string, written: boolean) => {
      const id = randomUUID();
      await pool.query(
        `insert into task_run_items (run_id, item_id, evaluator_id, ok, target, verdict, page)
         values ($1, $2, $3, true, $4, jsonb_build_object('name', 'exact_match', 'label', $5::text,
                 'score', 1, 'explanation', ''), $6)`,
        [run.id, runId, evaluatorId, e.experimentId, label, id],
      );
      if (written)
        await pool.query("insert into task_run_pages_written (run_id, page) values ($1, $2)", [
          run.id,
          id,
        ]);
    };
    await page(first!.id, "written", true);
    await page(second!.id, "kept", false);
    const outcome = await evaluate(e, run, true);
    expect(outcome).toEqual({ status: "COMPLETED" });
    expect(e.recorded).toEqual([
      [{ runId: second!.id, name: "exact_match", label: "kept", score: 1, explanation: "" }],
      [expect.objectContaining({ runId: third!.id })],
    ]);
    expect(await itemsOf(run.id)).toEqual({ n: 3, ok: 3, written: 3 });
  });

  it("a task's deletion takes its runs' items and written pages with it, and no other run's", async () => {
    const e = experimentOf(RUNS_PAGE + 1);
    const [run, kept] = [await runOver(e.experimentId), await runOver(e.experimentId)];
    await evaluate(e, run);
    await evaluate(e, kept);
    const client = await pool.connect();
    try {
      const deleted = { id: run.task_id, space_id: run.space_id, deleted_at: "" };
      await projector("task-runner", taskProjections)(
        client,
        [{ type: "TaskDeleted", data: deleted, eventId: randomUUID() }],
        schema,
      );
    } finally {
      client.release();
    }
    const left = async (table: string, runId: string) =>
      (
        await pool.query<{ n: number }>(
          `select count(*)::int as n from ${table} where run_id = $1`,
          [runId],
        )
      ).rows[0]!.n;
    const runs = await pool.query("select id from task_runs where id = any($1)", [
      [run.id, kept.id],
    ]);
    expect(runs.rows).toEqual([{ id: kept.id }]);
    expect(await left("task_run_items", run.id)).toBe(0);
    expect(await left("task_run_pages_written", run.id)).toBe(0);
    expect(await left("task_run_items", kept.id)).toBe(RUNS_PAGE + 1);
    expect(await left("task_run_pages_written", kept.id)).toBe(2);
  });
});
