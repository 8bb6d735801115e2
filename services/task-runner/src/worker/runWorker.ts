import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { streamId } from "@argus/contracts";
import { tracedQuery, type CommandHandler } from "@argus/eventstore";
import { startWorkLoop } from "@argus/service-host";
import { DomainError, type Clock, type Logger } from "@argus/platform";
import type { RunsToEvaluateResponse } from "@argus/proto/dataset/v1/dataset";
import type { ExperimentRuns } from "../peers/experimentRuns.ts";
import { runDecider, type Counts } from "../taskRuns/taskRunDecider.ts";
import { evaluateExperiments, firstRunsPage } from "./evaluateExperiments.ts";
import { evaluateSpans } from "./evaluateSpans.ts";
import { evaluateUnits } from "./evaluateUnits.ts";
import type { QueryFilters } from "../tasks/taskDecider.ts";
import { createRun, RUNS_CHANNEL } from "../taskRuns/createTaskRun.ts";
import type { ChainedTask } from "../taskRuns/taskRunCommands.ts";
import {
  generateExperiment,
  generation,
  judgement,
  type AgentCallConfig,
  type JudgementConfig,
  type ExperimentOptions,
  type GenerationConfig,
  type Produce,
} from "./runExperiment.ts";
import {
  agentOutput,
  callEndpoint,
  endpointOf,
  renderAgentBody,
  type Endpoint,
} from "./endpoints.ts";
import { providerChat } from "./llm.ts";
import type { Chat } from "./providerHttp.ts";
import type { Outcome, Progress, RunToWork } from "./runItems.ts";
import type { ProjectSpans } from "../peers/projectSpans.ts";
import {
  itemEvaluators,
  keyedLimiter,
  runSources,
  type EvaluatorDeps,
  type RunEvaluator,
} from "./evaluators.ts";

/** A RUN_EXPERIMENT task's run configuration: one of three shapes, by `experiment_type`. */
type RunConfiguration = GenerationConfig & AgentCallConfig & JudgementConfig;

export interface WorkerOptions {
  pool: Pool;
  commands: CommandHandler;
  runs: ExperimentRuns;
  spans: ProjectSpans;
  /** What evaluators need: AI integrations, the outbound guard's policy, provider limits. */
  evaluators: EvaluatorDeps;
  logger: Logger;
  /** A run's start and end, and a chained run's creation, are stamped with its time. */
  clock: Clock;
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
  query_filters: QueryFilters | null;
  evaluators: { evaluator_id: string; query_filter: string | null }[];
  run_configuration: RunConfiguration | null;
}

/**
 * How often a run being worked is looked at: a cancel, its task's deletion, or the deletion of
 * an evaluator or integration it uses aborts every call the run has out within this and one
 * query (the promise: within a second).
 */
const WATCH_MS = 250;

/**
 * What a look at a run being worked finds: it goes on; it ended elsewhere (a cancel, its task's
 * deletion took the row); or something it uses was deleted (how a reason names it).
 */
type Look = "running" | "ended" | { deleted: string };

/** Why a run ends CANCELLED when everything was already labeled and the trigger did not override. */
const ALL_LABELED =
  "all data matching the task's filters already has evaluation labels from an earlier run; trigger again with override_evaluations to evaluate it anew";

/** The reason a run's signal aborts with when something it uses was deleted. */
class SourceDeleted extends Error {}

/**
 * Looks at a run now and then every `ms`, and aborts `signal` the first time it may not go on,
 * with what was deleted as the reason, if that was it. The first look is answered before the
 * run makes a call, so a run claimed after a deletion makes none. A look that fails decides
 * nothing: the next one does.
 */
async function watchRun(
  look: () => Promise<Look>,
  ms: number,
): Promise<{ signal: AbortSignal; end(): void }> {
  const controller = new AbortController();
  let ended = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = async () => {
    const found = await look().catch((): Look => "running");
    if (ended) return;
    if (found !== "running")
      return controller.abort(
        found === "ended" ? undefined : new SourceDeleted(`the run's ${found.deleted} was deleted`),
      );
    timer = setTimeout(() => void next(), ms);
  };
  await next();
  return {
    signal: controller.signal,
    end() {
      ended = true;
      clearTimeout(timer);
    },
  };
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
 * items. A cancel, the deletion of the run's task (which takes the run's row), or that of an
 * evaluator or integration it uses (then the run ends FAILED, naming it) is seen within
 * `WATCH_MS`: the run's provider and endpoint calls out are aborted, none starts after, and the
 * work stops at the end of the page, recording only the items evaluated.
 */
export function startRunWorker(o: WorkerOptions): () => Promise<void> {
  // Calls to one AI integration at once, across every run this replica works.
  const limit = keyedLimiter(o.evaluators.perIntegration);

  /** A run claimed, with its task's facts read in the same statement (null: deleted with it). */
  async function claim(): Promise<(RunToWork & { task: TaskFacts | null }) | undefined> {
    const res = await tracedQuery<RunToWork & { task: TaskFacts | null }>(
      o.pool,
      "claim task run",
      `update task_runs r set leased_until = now() + make_interval(secs => $1 / 1000.0)
        where id = (select id from task_runs
                     where status in ('PENDING', 'RUNNING')
                       and (leased_until is null or leased_until < now())
                     order by created_at limit 1 for update skip locked)
        returning id, task_id, account_id, space_id, status, options,
          to_char(data_start_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            as data_start_time,
          to_char(data_end_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
            as data_end_time,
          (select to_jsonb(t) from (
             select task_type, project_id, dataset_id, is_continuous, sampling_rate, query_filter,
                    query_filters, evaluators, run_configuration
               from tasks where id = r.task_id) t) as task`,
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

  async function counts(db: Pool | PoolClient, id: string): Promise<Counts> {
    const res = await tracedQuery<Counts>(
      db,
      "task run counts",
      `select count(*) filter (where ok)::int as num_successes,
              count(*) filter (where not ok)::int as num_errors,
              count(*) filter (where ok is null)::int as num_skipped
         from task_run_items where run_id = $1`,
      [id],
    );
    return res.rows[0]!;
  }

  /**
   * Whether the run goes on: a cancel ends it, its task's deletion takes the row, and the
   * deletion of one of its `sources` (the catalog's, recorded by catalogDeletions) stops it.
   */
  async function look(id: string, sources: Map<string, string>): Promise<Look> {
    const res = await tracedQuery<{ status: string; deleted: string | null }>(
      o.pool,
      "task run still running",
      `select status, (select id from catalog_deletions where id = any($2::uuid[]) limit 1) as deleted
         from task_runs where id = $1`,
      [id, [...sources.keys()]],
    );
    const row = res.rows[0];
    if (row?.status !== "RUNNING") return "ended";
    return row.deleted ? { deleted: sources.get(row.deleted) ?? row.deleted } : "running";
  }

  /**
   * Counts advance while RUNNING, so polling shows progress; false once it is not RUNNING. Each
   * page adds its own counts, so a report costs the same on the millionth item as on the first;
   * a run taken over counts its items again first (its dead worker may have recorded some it
   * never reported). The end counts them all again (FinishRun).
   */
  const report = (id: string, resumed: boolean) => {
    let recount = resumed;
    return async (page: Counts) => {
      const set = recount ? await counts(o.pool, id) : undefined;
      // Counted again: the run's counts are set; otherwise the page's are added.
      const to = (column: keyof Counts, param: string) => (set ? param : `${column} + ${param}`);
      const c = set ?? page;
      const res = await tracedQuery(
        o.pool,
        "task run progress",
        `update task_runs set num_successes = ${to("num_successes", "$3")},
           num_errors = ${to("num_errors", "$4")}, num_skipped = ${to("num_skipped", "$5")},
           leased_until = now() + make_interval(secs => $2 / 1000.0)
         where id = $1 and status = 'RUNNING'`,
        [id, o.leaseMs, c.num_successes, c.num_errors, c.num_skipped],
      );
      recount = false;
      return res.rowCount === 1;
    };
  };

  /** The model a RUN_EXPERIMENT task's generation calls, limited per integration. */
  async function generationChat(
    run: RunToWork,
    config: GenerationConfig,
    stopped: AbortSignal,
  ): Promise<Chat> {
    const integrationId = config.ai_integration_id ?? "";
    const integration = await o.evaluators.integrations(run.account_id, integrationId);
    const chat = providerChat(
      integration,
      o.evaluators.policy,
      o.evaluators.providerTimeoutMs,
      o.evaluators.clouds,
      stopped,
    );
    return (request) => limit(integrationId, () => chat(request));
  }

  /** What makes a RUN_EXPERIMENT run's outputs, or why it cannot run. */
  async function producerOf(
    run: RunToWork,
    config: RunConfiguration,
    stopped: AbortSignal,
  ): Promise<Produce | string> {
    if (config.experiment_type === "LLM_GENERATION")
      return generation(config, await generationChat(run, config, stopped));
    if (config.experiment_type === "TEMPLATE_EVALUATION")
      return judgement(config, await generationChat(run, config, stopped));
    if (config.experiment_type === "AGENT_CALL") {
      let agent: Endpoint;
      try {
        const resolved = await o.evaluators.endpoints(run.account_id, config.integration_id ?? "");
        if (resolved.type !== "AGENT")
          return `run_configuration.integration_id names a ${resolved.type} integration, not an AGENT`;
        agent = endpointOf(resolved);
      } catch (err) {
        return `run_configuration.integration_id: ${(err as Error).message}`;
      }
      const template = config.input_template ?? {};
      const options = {
        policy: o.evaluators.policy,
        timeoutMs: o.evaluators.providerTimeoutMs,
        stopped,
      };
      return async (fields) =>
        limit(agent.id, async () =>
          agentOutput(await callEndpoint(agent, renderAgentBody(agent, template, fields), options)),
        );
    }
    return `${String(config.experiment_type)} runs are not executed by this version of Argus yet`;
  }

  async function execute(
    run: RunToWork,
    task: TaskFacts,
    experimentId: string | null,
    progress: Progress,
    first?: Promise<RunsToEvaluateResponse>,
  ): Promise<Outcome> {
    if (task.task_type === "RUN_EXPERIMENT") {
      const produce = await producerOf(run, task.run_configuration ?? {}, progress.stopped);
      if (typeof produce === "string") return { status: "FAILED", reason: produce };
      return generateExperiment(
        o.pool,
        o.runs,
        run,
        { datasetId: task.dataset_id!, experimentId: experimentId!, taskId: run.task_id },
        produce,
        progress,
      );
    }
    const attached = (run.options.evaluators ?? []) as RunEvaluator[];
    const evaluators = await itemEvaluators(o.evaluators, limit, run, attached, progress.stopped);
    try {
      // A task's evaluators are all of one shape: trace/session ones read whole units.
      const traceShaped = attached.some((e) => e.query_mappings);
      if (task.dataset_id && traceShaped)
        return {
          status: "FAILED",
          reason:
            "trace/session evaluators (query_mappings) run on a project's traces and sessions; a dataset task has none",
        };
      if (task.dataset_id)
        return await evaluateExperiments(o.pool, o.runs, run, evaluators, progress, first);
      if (traceShaped)
        return await evaluateUnits(
          o.pool,
          o.spans,
          run,
          {
            project_id: task.project_id!,
            sampling_rate: task.sampling_rate,
            query_filters: task.query_filters,
          },
          evaluators,
          progress,
        );
      return await evaluateSpans(
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
        progress,
      );
    } finally {
      evaluators.close();
    }
  }

  async function work({ task, ...run }: RunToWork & { task: TaskFacts | null }): Promise<void> {
    const stream = streamId("task_run", run.id);
    const heartbeat = setInterval(() => void renew(run.id).catch(() => undefined), o.leaseMs / 3);
    try {
      if (!task) return; // Deleted with its runs.
      let outcome: Outcome | undefined;
      // A RUN_EXPERIMENT run's experiment exists before the run starts, so the run shows it
      // from RUNNING on (a name already taken fails the run).
      let experimentId: string | null = null;
      if (task.task_type === "RUN_EXPERIMENT")
        experimentId = await startExperiment(run, task).catch((err: Error) => {
          outcome = { status: "FAILED", reason: err.message };
          return null;
        });
      if (!outcome) {
        // A dataset task's first page is read while its start is recorded.
        const first =
          task.task_type !== "RUN_EXPERIMENT" && task.dataset_id
            ? firstRunsPage(o.runs, run)
            : undefined;
        await o.commands.handle(
          stream,
          runDecider,
          { type: "StartRun", now: o.clock.now(), experimentId },
          metadata(run),
        );
        const sources = runSources(
          (run.options.evaluators ?? []) as RunEvaluator[],
          task.run_configuration,
        );
        const watch = await watchRun(() => look(run.id, sources), WATCH_MS);
        try {
          outcome = await execute(
            run,
            task,
            experimentId,
            {
              report: report(run.id, run.status === "RUNNING"),
              stopped: watch.signal,
              // Claimed RUNNING: another worker started it, and may have recorded items.
              resumed: run.status === "RUNNING",
            },
            first,
          );
        } catch (err) {
          // Stopped mid-way: its end is the cancel's, or went with its task.
          outcome = watch.signal.aborted
            ? { status: "STOPPED" }
            : { status: "FAILED", reason: (err as Error).message };
        } finally {
          watch.end();
        }
        const why: unknown = watch.signal.reason;
        if (why instanceof SourceDeleted) outcome = { status: "FAILED", reason: why.message };
      }
      if (outcome.status === "STOPPED") return;
      // The counts are read in the end's own transaction: one round trip less before it.
      const ended = outcome;
      const failureReason = ended.status === "FAILED" ? ended.reason : null;
      let status: "COMPLETED" | "FAILED" | "CANCELLED" = ended.status;
      await o.commands.handle(
        stream,
        runDecider,
        {
          build: async (_state, client) => {
            const c = await counts(client, run.id);
            // The spec's rule: everything already labeled and no override → CANCELLED, zero counts.
            const allLabeled =
              ended.status === "COMPLETED" &&
              c.num_successes + c.num_errors === 0 &&
              c.num_skipped > 0;
            status = allLabeled ? "CANCELLED" : ended.status;
            return {
              type: "FinishRun",
              status,
              counts: allLabeled ? { num_successes: 0, num_errors: 0, num_skipped: 0 } : c,
              experimentId,
              failureReason: allLabeled ? ALL_LABELED : failureReason,
              isContinuous: task.is_continuous,
              now: o.clock.now(),
            } as const;
          },
        },
        metadata(run),
      );
      if (status === "COMPLETED" && experimentId) await startChained(run, experimentId);
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function startExperiment(run: RunToWork, task: TaskFacts): Promise<string> {
    const options = run.options as unknown as ExperimentOptions;
    return o.runs.startExperiment({
      accountId: run.account_id,
      experimentId: options.experiment_id,
      datasetId: task.dataset_id!,
      datasetVersionId: options.dataset_version_id ?? "",
      name: options.experiment_name,
      taskId: run.task_id,
      // The experiment names the agent whose answers it records (its public integration_id).
      integrationId:
        task.run_configuration?.experiment_type === "AGENT_CALL"
          ? (task.run_configuration.integration_id ?? "")
          : "",
    });
  }

  /**
   * The evaluation tasks the trigger chained, each a PENDING run over the new experiment, with
   * the evaluators resolved at the trigger. Its id is derived from this run's, so a worker that
   * repeats this after a crash finds the run made before (a conflict, skipped).
   */
  async function startChained(run: RunToWork, experimentId: string): Promise<void> {
    const chained = ((run.options as { chained?: ChainedTask[] }).chained ?? []).entries();
    for (const [i, t] of chained) {
      const id = chainedRunId(run.id, i);
      await createRun(
        o.commands,
        {
          id,
          task_id: t.task_id,
          account_id: t.account_id,
          space_id: t.space_id,
          options: {
            override_evaluations: false,
            evaluators: t.evaluators,
            experiment_ids: [experimentId],
          },
          data_start_time: null,
          data_end_time: null,
          created_by_user_id: t.created_by_user_id,
          created_at: o.clock.now().toISOString(),
        },
        { ...metadata(run), space_id: t.space_id },
      ).catch((err: unknown) => {
        if (!(err instanceof DomainError && err.type === "resource-conflict")) throw err;
      });
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

/** The i-th chained run of `runId`: a uuid of its own, the same on every attempt. */
export function chainedRunId(runId: string, i: number): string {
  const hex = createHash("sha256").update(`${runId}/chained/${i}`).digest("hex");
  // A version-8 (custom) uuid: its own bits, marked as such.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
