import type { Pool } from "pg";
import { tracedQuery, type CommandHandler } from "@argus/eventstore";
import { startWorkLoop } from "@argus/service-host";
import { uuidv7, type Clock, type Logger } from "@argus/platform";
import type { TaskEvaluatorSettings } from "@argus/contracts";
import type { EvaluatorResolver } from "../peers/catalogEvaluators.ts";
import type { ProjectSpans } from "../peers/projectSpans.ts";
import { createRun } from "../taskRuns/createTaskRun.ts";
import { runEvaluatorOf } from "./evaluators.ts";

/** Spans a continuous run evaluates at most, as a triggered run's default. */
const MAX_SPANS = 10_000;

export interface ContinuousOptions {
  pool: Pool;
  commands: CommandHandler;
  spans: ProjectSpans;
  evaluators: EvaluatorResolver;
  logger: Logger;
  /** Where "now" comes from: a window ends `lagMs` before it. */
  clock: Clock;
  /** How often each continuous task is looked at. */
  intervalMs: number;
  /** How far behind now a window ends: spans exported late still fall in the next one. */
  lagMs: number;
}

/**
 * Where a continuous task's next window ends: `lagMs` before `now`, when that is past where
 * its last window ended; none yet otherwise (the window grows until it is).
 */
export function nextWindowEnd(lastEnd: Date, now: Date, lagMs: number): Date | undefined {
  const end = new Date(now.getTime() - lagMs);
  return end > lastEnd ? end : undefined;
}

interface Due {
  task_id: string;
  window_end: Date;
}

interface ContinuousTask {
  account_id: string;
  space_id: string;
  project_id: string;
  query_filter: string | null;
  created_by_user_id: string;
  evaluators: TaskEvaluatorSettings[];
  active: boolean;
}

/**
 * Continuous (online) project tasks evaluate new spans as they arrive: every `intervalMs` each
 * such task's window since the last one (ending `lagMs` before now) becomes a PENDING run when
 * spans matching the task's filter fell in it, with the evaluators resolved on the task
 * runner's own behalf (the pinned version, else the latest). A task whose previous run is still
 * PENDING or RUNNING waits; its window grows meanwhile. Replicas share the work: each task's
 * turn is claimed under skip locked. Spans are placed by their start time, so a span exported
 * more than `lagMs` after it started, into a window already closed, is not evaluated.
 */
export function startContinuousScheduler(o: ContinuousOptions): () => Promise<void> {
  async function claim(n: number): Promise<Due[]> {
    // Tasks that became continuous start from their last run's end, else from now; tasks
    // that no longer are lose their window.
    await tracedQuery(
      o.pool,
      "continuous windows",
      `insert into continuous_windows (task_id, window_end, next_at)
       select t.id,
              coalesce((select max(r.data_end_time) from task_runs r where r.task_id = t.id), now()),
              now() + make_interval(secs => $1 / 1000.0)
         from tasks t
        where t.is_continuous and t.project_id is not null
          and not exists (select 1 from continuous_windows w where w.task_id = t.id)
       on conflict do nothing`,
      [o.intervalMs],
    );
    await tracedQuery(
      o.pool,
      "continuous windows ended",
      `delete from continuous_windows w
        where not exists (select 1 from tasks t where t.id = w.task_id and t.is_continuous)`,
    );
    const res = await tracedQuery<Due>(
      o.pool,
      "claim continuous tasks",
      `update continuous_windows w set next_at = now() + make_interval(secs => $1 / 1000.0)
         from (select task_id from continuous_windows where next_at <= now()
                order by next_at limit $2 for update skip locked) due
        where w.task_id = due.task_id
        returning w.task_id, w.window_end`,
      [o.intervalMs, n],
    );
    return res.rows;
  }

  async function work(due: Due): Promise<void> {
    const task = (
      await tracedQuery<ContinuousTask>(
        o.pool,
        "continuous task",
        `select account_id, space_id, project_id, query_filter, created_by_user_id, evaluators,
                exists (select 1 from task_runs r where r.task_id = t.id
                         and r.status in ('PENDING', 'RUNNING')) as active
           from tasks t where id = $1 and is_continuous`,
        [due.task_id],
      )
    ).rows[0];
    if (!task || task.active) return;
    const end = nextWindowEnd(due.window_end, o.clock.now(), o.lagMs);
    if (!end) return;
    const window = { startTime: due.window_end.toISOString(), endTime: end.toISOString() };
    const any = await o.spans.page({
      accountId: task.account_id,
      projectId: task.project_id,
      ...window,
      filter: task.query_filter ?? "",
      after: "",
      limit: 1,
    });
    if (any.spans.length > 0) {
      const resolved = new Map(
        (
          await o.evaluators(
            task.account_id,
            task.space_id,
            task.evaluators.map((e) => ({
              evaluatorId: e.evaluator_id,
              versionId: e.evaluator_version_id ?? "",
            })),
          )
        ).map((r) => [r.evaluatorId, r]),
      );
      const evaluators = task.evaluators.flatMap((e) => {
        const r = resolved.get(e.evaluator_id);
        if (!r) return [];
        const config = JSON.parse(r.configJson) as Record<string, unknown>;
        return [runEvaluatorOf(e, { versionId: r.versionId, type: r.type, config })];
      });
      await createRun(
        o.commands,
        {
          id: uuidv7(),
          task_id: due.task_id,
          account_id: task.account_id,
          space_id: task.space_id,
          options: { override_evaluations: false, evaluators, max_spans: MAX_SPANS },
          data_start_time: window.startTime,
          data_end_time: window.endTime,
          created_by_user_id: task.created_by_user_id,
          created_at: o.clock.now().toISOString(),
        },
        { account_id: task.account_id, space_id: task.space_id, actor: "system:task-runner" },
      );
    }
    await tracedQuery(
      o.pool,
      "continuous window advanced",
      "update continuous_windows set window_end = $2 where task_id = $1 and window_end < $2",
      [due.task_id, end],
    );
  }

  return startWorkLoop({
    pool: o.pool,
    channel: "argus_task_continuous",
    logger: o.logger,
    pollMs: o.intervalMs,
    concurrency: 4,
    claim,
    work,
  });
}
