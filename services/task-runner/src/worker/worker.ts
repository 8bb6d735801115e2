import type { Pool } from "pg";
import { streamId } from "@argus/contracts";
import { startWorkLoop, tracedQuery, type CommandHandler } from "@argus/eventstore";
import type { Logger } from "@argus/platform";
import type { ExperimentRuns } from "../adapters/experimentRuns.ts";
import { runDecider, type Counts } from "../domain/run.ts";
import { evaluateExperiments } from "./evaluateExperiments.ts";
import { evaluateSpans } from "./evaluateSpans.ts";
import type { Outcome, RunToWork } from "./runItems.ts";
import type { ProjectSpans } from "../adapters/projectSpans.ts";
import {
  itemEvaluators,
  keyedLimiter,
  type EvaluatorDeps,
  type RunEvaluator,
} from "./evaluators.ts";

/** Postgres channel a triggered run is announced on, so an idle worker starts at once. */
export const RUNS_CHANNEL = "argus_task_runs";

export type { Outcome, RunToWork } from "./runItems.ts";

export interface WorkerOptions {
  pool: Pool;
  commands: CommandHandler;
  runs: ExperimentRuns;
  spans: ProjectSpans;
  /** What evaluators need: AI integrations, the outbound guard's policy, provider limits. */
  evaluators: EvaluatorDeps;
  logger: Logger;
  /** Runs worked on at once per replica. */
  concurrency: number;
  /** How long a claim lasts without a heartbeat; a dead worker's run is taken over after it. */
  leaseMs: number;
  pollMs: number;
}

interface TaskFacts {
  task_type: string;
  project_id: string | null;
  dataset_id: string | null;
  is_continuous: boolean;
  sampling_rate: number | null;
  query_filter: string | null;
  evaluators: { evaluator_id: string; query_filter: string | null }[];
}

const metadata = (r: RunToWork) => ({
  account_id: r.account_id,
  space_id: r.space_id,
  actor: "system:task-runner",
  run_id: r.id,
});

/**
 * Works off runs: claims one at a time under a lease it renews while working (a run whose
 * worker died is taken over once the lease passes, and resumes where the items recorded so
 * far end), records its start, executes it, and records its end with counts taken from the
 * items. A cancel is seen at the next page (the progress update finds the run no longer
 * RUNNING) and the work stops there: within one page of items and one heartbeat.
 */
export function startRunWorker(o: WorkerOptions): () => Promise<void> {
  // Calls to one AI integration at once, across every run this replica works.
  const limit = keyedLimiter(o.evaluators.perIntegration);

  async function claim(): Promise<RunToWork | undefined> {
    const res = await tracedQuery<RunToWork>(
      o.pool,
      "claim task run",
      `update task_runs set leased_until = now() + make_interval(secs => $1 / 1000.0)
        where id = (select id from task_runs
                     where status in ('PENDING', 'RUNNING')
                       and (leased_until is null or leased_until < now())
                     order by created_at limit 1 for update skip locked)
        returning id, task_id, account_id, space_id, status, options,
          to_char(data_start_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            as data_start_time,
          to_char(data_end_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            as data_end_time`,
      [o.leaseMs],
    );
    return res.rows[0];
  }

  /** Extends the lease; false once the run is no longer being worked (cancelled, finished). */
  const renew = async (id: string) =>
    (
      await tracedQuery(
        o.pool,
        "renew task run lease",
        `update task_runs set leased_until = now() + make_interval(secs => $2 / 1000.0)
          where id = $1 and status = 'RUNNING'`,
        [id, o.leaseMs],
      )
    ).rowCount === 1;

  async function counts(id: string): Promise<Counts> {
    const res = await tracedQuery<Counts>(
      o.pool,
      "task run counts",
      `select count(*) filter (where ok)::int as num_successes,
              count(*) filter (where not ok)::int as num_errors,
              count(*) filter (where ok is null)::int as num_skipped
         from task_run_items where run_id = $1`,
      [id],
    );
    return res.rows[0]!;
  }

  /** Counts advance while RUNNING, so polling shows progress; false once it is not RUNNING. */
  const progress = (id: string) => async () => {
    const c = await counts(id);
    const res = await tracedQuery(
      o.pool,
      "task run progress",
      `update task_runs set num_successes = $2, num_errors = $3, num_skipped = $4,
         leased_until = now() + make_interval(secs => $5 / 1000.0)
       where id = $1 and status = 'RUNNING'`,
      [id, c.num_successes, c.num_errors, c.num_skipped, o.leaseMs],
    );
    return res.rowCount === 1;
  };

  async function execute(run: RunToWork, task: TaskFacts): Promise<Outcome> {
    if (task.task_type === "RUN_EXPERIMENT")
      return {
        status: "FAILED",
        reason: "RUN_EXPERIMENT runs are not executed by this version of Argus yet",
      };
    const evaluators = await itemEvaluators(
      o.evaluators,
      limit,
      run.account_id,
      (run.options.evaluators ?? []) as RunEvaluator[],
    );
    if (task.dataset_id)
      return evaluateExperiments(o.pool, o.runs, run, evaluators, progress(run.id));
    return evaluateSpans(
      o.pool,
      o.spans,
      run,
      {
        project_id: task.project_id!,
        sampling_rate: task.sampling_rate,
        query_filter: task.query_filter,
        evaluatorFilters: new Map(task.evaluators.map((e) => [e.evaluator_id, e.query_filter])),
      },
      evaluators,
      progress(run.id),
    );
  }

  async function work(run: RunToWork): Promise<void> {
    const stream = streamId("task_run", run.id);
    const heartbeat = setInterval(() => void renew(run.id).catch(() => undefined), o.leaseMs / 3);
    try {
      const task = (
        await tracedQuery<TaskFacts>(
          o.pool,
          "task of run",
          `select task_type, project_id, dataset_id, is_continuous, sampling_rate, query_filter,
                  evaluators
             from tasks where id = $1`,
          [run.task_id],
        )
      ).rows[0];
      if (!task) return; // Deleted with its runs.
      await o.commands.handle(
        stream,
        runDecider,
        { type: "StartRun", now: new Date() },
        metadata(run),
      );
      let outcome: Outcome;
      try {
        outcome = await execute(run, task);
      } catch (err) {
        outcome = { status: "FAILED", reason: (err as Error).message };
      }
      if (outcome.status === "STOPPED") return;
      let c = await counts(run.id);
      let status: "COMPLETED" | "FAILED" | "CANCELLED" = outcome.status;
      let reason = outcome.status === "FAILED" ? outcome.reason : null;
      // The spec's rule: everything already labeled and no override → CANCELLED, zero counts.
      if (status === "COMPLETED" && c.num_successes + c.num_errors === 0 && c.num_skipped > 0) {
        status = "CANCELLED";
        c = { num_successes: 0, num_errors: 0, num_skipped: 0 };
        reason =
          "all data matching the task's filters already has evaluation labels from an earlier run; trigger again with override_evaluations to evaluate it anew";
      }
      await o.commands.handle(
        stream,
        runDecider,
        {
          type: "FinishRun",
          status,
          counts: c,
          experimentId: null,
          failureReason: reason,
          isContinuous: task.is_continuous,
          now: new Date(),
        },
        metadata(run),
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  return startWorkLoop({
    pool: o.pool,
    channel: RUNS_CHANNEL,
    logger: o.logger,
    pollMs: o.pollMs,
    concurrency: o.concurrency,
    // One at a time: a replica takes a run only when it has room, leaving the rest to others.
    claim: async () => {
      const run = await claim();
      return run ? [run] : [];
    },
    work,
  });
}
