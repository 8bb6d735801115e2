import pg from "pg";
import { decodeId } from "@argus/platform";
import { createFloorEvents, FLOOR_EVENTS } from "./baseline/floorEvents.ts";
import { prepared } from "./baseline/prepared.ts";
import { inTransaction } from "./copy.ts";
import { Api } from "./datasets.ts";
import type { Operation, OperationBenchmark } from "./operations.ts";
import { percentile, type Summary } from "./stats.ts";
import { withBenchStack } from "./stack.ts";

const ITEMS = 1000;

/**
 * Issue "Task runner": the per-item overhead of an evaluation run. Subject: a CODE_EVALUATION
 * task with a MANAGED EXACT_MATCH evaluator over an experiment of 1000 runs, triggered through
 * the API (override_evaluations, so every run evaluates all 1000), polled until COMPLETED and
 * timed to its recorded end: the claim, the pages read from the dataset service, the
 * evaluations written back through it (an event a page), the items recorded, progress and the
 * run's events. Baseline: the same evaluation as a bare loop over SQL — one select of the runs
 * with their examples' `expected`, the comparison in a loop, one update writing the same eval.*
 * fields.
 */
export const taskRunBenchmark = () => taskBenchmark("api");

/**
 * The floor under `task-run-1000`: the same evaluation, event-sourced and paged as the design
 * asks (no process holds a whole experiment), in Postgres alone from a pg pool: per page of
 * 500 runs, one keyset select of the runs with their examples' `expected`, the comparison, the
 * page's evaluations appended as one event (a stream and type no projection or consumer knows)
 * and the rows updated from it, each page its own transaction. Same baseline: the bare loop.
 */
export const taskRunFloorBenchmark = () => taskBenchmark("floor");

/** Runs a page, as the task runner reads them (RUNS_PAGE in its evaluateExperiments.ts). */
const PAGE = 500;

interface RunRow {
  id: string;
  output: string;
  expected: string | null;
}

// Runs with their examples' `expected`, `tail` after the `where`: all of an experiment's (the
// loop), or a page after a run id (the floor).
const runsWithExpected = (tail: string) =>
  `select r.id, r.output, (select e.fields ->> 'expected' from dataset.examples e
                            where e.id = r.example_id limit 1) as expected
     from dataset.experiment_runs r
    where ${tail}`;
const allRuns = prepared("all_runs", runsWithExpected("r.experiment_id = $1"));
const runPage = prepared(
  "run_page",
  runsWithExpected("r.experiment_id = $1 and r.id > $2 order by r.id limit $3"),
);
/** An experiment's runs, each merged with its evaluation's fields. */
const updateRuns = prepared(
  "update_runs",
  `update dataset.experiment_runs r set fields = r.fields || x.patch
     from jsonb_to_recordset($2::jsonb) as x(run_id uuid, patch jsonb)
    where r.experiment_id = $1 and r.id = x.run_id`,
);
const appendEvaluated = prepared(
  "append_evaluated",
  `insert into ${FLOOR_EVENTS} (stream_id, stream_version, event_id, event_type, data, metadata)
   values ($1, $2, gen_random_uuid(), 'BenchFloorEvaluated', jsonb_build_object('evaluations', $3::jsonb), '{}')`,
);

async function taskBenchmark(subjectKind: "api" | "floor"): Promise<OperationBenchmark> {
  return withBenchStack(async ({ stack, databaseUrl, onStop, stop }) => {
    const api = new Api(stack);
    const { experimentUuid, taskId } = await seedEvaluationTask(api);
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    onStop(() => pool.end());
    await createFloorEvents(pool);
    const p = stack.processes;
    const pids = {
      gateway: p.gateway!.pid,
      "task-runner": p["task-runner"]!.pid,
      dataset: p.dataset!.pid,
    };
    const evaluationsOf = (rows: RunRow[]) =>
      rows.map((r) => {
        const ok = r.output === r.expected;
        return {
          run_id: r.id,
          patch: {
            "eval.exact_match.label": ok ? "true" : "false",
            "eval.exact_match.score": ok ? 1 : 0,
            "eval.exact_match.explanation": ok ? "the values are equal" : "the values differ",
          },
        };
      });
    let floorRuns = 0;
    const floor: Operation = {
      name: "paged events+update",
      pids: {},
      async run() {
        const stream = `bench_floor-${++floorRuns}-${experimentUuid}`;
        let after = "00000000-0000-0000-0000-000000000000";
        let updated = 0;
        for (let page = 1; ; page++) {
          const rows = await pool.query<RunRow>(runPage([experimentUuid, after, PAGE]));
          if (rows.rows.length === 0) break;
          after = rows.rows[rows.rows.length - 1]!.id;
          const evaluations = JSON.stringify(evaluationsOf(rows.rows));
          await inTransaction(pool, async (client) => {
            await client.query(appendEvaluated([stream, page, evaluations]));
            const res = await client.query(updateRuns([experimentUuid, evaluations]));
            updated += res.rowCount ?? 0;
          });
        }
        if (updated !== ITEMS) throw new Error(`${updated} updated`);
      },
    };
    const seen: TaskRunTimes[] = [];
    const viaApi: Operation = {
      name: "task run",
      pids,
      // Timed to the run's own end: the SQL loop has no poller adding up to POLL_MS to it.
      async run() {
        const times = await runTask(api, taskId);
        seen.push(times);
        return times.finishedMs;
      },
    };
    return {
      kind: "operations",
      name:
        subjectKind === "api"
          ? `an evaluation run over ${ITEMS} experiment runs (EXACT_MATCH) vs the same in a bare loop over SQL`
          : `the same evaluation over ${ITEMS} runs, paged and event-sourced in Postgres alone, vs the bare loop over SQL`,
      maxOpsPerSlice: 50,
      subject: subjectKind === "api" ? viaApi : floor,
      // Judged against the floor in the same rounds too (bench/README.md, "Every goal").
      ...(subjectKind === "api" && {
        floors: [floor],
        afterwards: (loop: Summary) => {
          const p50 = (xs: number[]) =>
            percentile(
              xs.sort((a, b) => a - b),
              50,
            );
          const seenP50 = p50(seen.map((t) => t.seenMs));
          return [
            `task run as its poller saw it (every ${POLL_MS} ms, ${seen.length} runs, warmups included): ` +
              `p50 ${seenP50.toFixed(2)} ms, ${(seenP50 / loop.p50Ms).toFixed(2)}x the SQL loop's p50; ` +
              `COMPLETED seen p50 ${p50(seen.map((t) => t.seenMs - t.finishedMs)).toFixed(2)} ms after the run's end`,
          ];
        },
      }),
      baseline: {
        name: "SQL loop",
        pids: {},
        async run() {
          const rows = await pool.query<RunRow>(allRuns([experimentUuid]));
          const evaluations = evaluationsOf(rows.rows);
          const res = await pool.query(updateRuns([experimentUuid, JSON.stringify(evaluations)]));
          if (res.rowCount !== ITEMS) throw new Error(`${res.rowCount} updated`);
        },
      },
      stop,
    };
  });
}

/**
 * A dataset of ITEMS examples, an experiment with a run of each (half of them equal to the
 * expected answer), and a CODE_EVALUATION task with a MANAGED EXACT_MATCH evaluator over it.
 */
export async function seedEvaluationTask(
  api: Api,
): Promise<{ experimentUuid: string; taskId: string }> {
  const spaceId = await api.defaultSpaceId();
  const examples = Array.from({ length: ITEMS }, (_, i) => ({
    input: `q${i}`,
    expected: `a${i}`,
  }));
  const dataset = await api.call<{ id: string }>("POST", "/v2/datasets", 201, {
    space_id: spaceId,
    name: `bench-${Date.now()}`,
    examples,
  });
  const ids: string[] = [];
  let cursor = "";
  do {
    const page = await api.call<{
      examples: { id: string }[];
      pagination: { has_more: boolean; next_cursor?: string };
    }>(
      "GET",
      `/v2/datasets/${dataset.id}/examples?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
      200,
    );
    ids.push(...page.examples.map((e) => e.id));
    cursor = page.pagination.has_more ? page.pagination.next_cursor! : "";
  } while (cursor);
  const experiment = await api.call<{ id: string }>("POST", "/v2/experiments", 201, {
    name: `bench-exp-${Date.now()}`,
    dataset_id: dataset.id,
    experiment_runs: ids.map((id, i) => ({ example_id: id, output: i % 2 ? "no" : `a${i}` })),
  });
  const evaluator = await api.call<{ id: string }>("POST", "/v2/evaluators", 201, {
    space_id: spaceId,
    name: `bench-exact-${Date.now()}`,
    type: "CODE",
    version: {
      commit_message: "c",
      code_config: {
        type: "MANAGED",
        name: "exact_match",
        managed_evaluator: "EXACT_MATCH",
        variables: ["output", "expected"],
      },
    },
  });
  const task = await api.call<{ id: string }>("POST", "/v2/tasks", 201, {
    type: "CODE_EVALUATION",
    name: `bench-task-${Date.now()}`,
    dataset_id: dataset.id,
    experiment_ids: [experiment.id],
    evaluators: [{ evaluator_id: evaluator.id }],
  });
  return { experimentUuid: decodeId("Experiment", experiment.id)!, taskId: task.id };
}

/** When one run of the task ended, in ms from the trigger's send. */
export interface TaskRunTimes {
  /** The run's own end: its `run_finished_at`, stamped as it finished. */
  finishedMs: number;
  /** When the poll first answered COMPLETED: the end plus up to one poll interval and a poll. */
  seenMs: number;
}

/**
 * Between polls: a user watching closely (the SDK's `wait_for_run` waits 5 s). Each poll costs
 * the stack ~2.5 ms of CPU on this machine's two cores, which the run being timed shares; every
 * 10 ms, the polls took ~15% of the machine's CPU per run (2026-12-04, "Measured" in README).
 */
const POLL_MS = 50;

/**
 * One run of the task, as a user would watch it: triggered with override_evaluations (every run
 * evaluates all ITEMS), then its status polled every POLL_MS until COMPLETED. `mark` (profiling)
 * hears when the trigger answered and each poll's status.
 */
export async function runTask(
  api: Api,
  taskId: string,
  mark: (what: string) => void = () => undefined,
): Promise<TaskRunTimes> {
  // The wall clock, as the server stamps the run's end with it; sub-millisecond from the same
  // process's monotonic clock.
  const sentAt = performance.timeOrigin + performance.now();
  const run = await api.call<{ id: string }>("POST", `/v2/tasks/${taskId}/trigger`, 201, {
    override_evaluations: true,
  });
  mark("triggered");
  for (;;) {
    const now = await api.call<{
      status: string;
      num_successes: number;
      run_finished_at?: string;
    }>("GET", `/v2/task-runs/${run.id}`, 200);
    mark(`polled ${now.status}`);
    if (now.status === "COMPLETED") {
      if (now.num_successes !== ITEMS) throw new Error(`${now.num_successes} evaluated`);
      const seenMs = performance.timeOrigin + performance.now() - sentAt;
      const finishedMs = Date.parse(now.run_finished_at ?? "") - sentAt;
      // The stamp has whole milliseconds: up to 1 ms early is the truncation, not the clock.
      if (!(finishedMs > -1 && finishedMs <= seenMs))
        throw new Error(`run_finished_at ${now.run_finished_at} is not within the run as seen`);
      return { finishedMs: Math.max(finishedMs, 0), seenMs };
    }
    if (now.status !== "PENDING" && now.status !== "RUNNING")
      throw new Error(`run ended ${now.status}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
