import { streamId, type TaskRunCreated } from "@argus/contracts";
import { DomainError, actorMetadata, uuidv7, type CallContext } from "@argus/platform";
import type { CancelRunRequest, TaskRun, TriggerRunRequest } from "@argus/proto/tasks/v1/tasks";
import { requirePermissionAt } from "@argus/spaces";
import type { TasksDeps } from "../deps.ts";
import { accessOf, kindOf, permissionOf, placeOf } from "../shared/access.ts";
import { checkFilterSyntax, invalid, unprocessable } from "../tasks/taskDecider.ts";
import { taskRow, type TaskRow } from "../tasks/taskRows.ts";
import { runEvaluatorOf, type RunEvaluator } from "../worker/evaluators.ts";
import { createRun } from "./createTaskRun.ts";
import { runDecider } from "./taskRunDecider.ts";
import { runRow, toRun } from "./taskRunRows.ts";

const EVALUATION_FIELDS = new Set([
  "data_start_time",
  "data_end_time",
  "max_spans",
  "override_evaluations",
  "experiment_ids",
]);
const EXPERIMENT_FIELDS = new Set([
  "experiment_name",
  "dataset_version_id",
  "example_ids",
  "max_examples",
  "query_filter",
  "tracing_metadata",
  "evaluation_task_ids",
]);
const DEFAULT_MAX_SPANS = 10_000;

const time = (raw: string, what: string): Date => {
  const d = new Date(raw);
  if (Number.isNaN(d.getTime())) throw invalid(`${what} must be an ISO 8601 date-time`);
  return d;
};

/** Each evaluator's version (the pinned one, else the latest now) with its config. */
async function resolvedEvaluators(
  deps: TasksDeps,
  ctx: CallContext,
  task: TaskRow,
): Promise<RunEvaluator[]> {
  // Asked of the catalog at once (a trigger waits for the slowest, not for their sum); a
  // failure is the first evaluator's in the task's order, as when they were asked in turn.
  const asked = await Promise.allSettled(
    task.evaluators.map((e) =>
      deps.places.evaluator(ctx, e.evaluator_id, e.evaluator_version_id ?? ""),
    ),
  );
  return asked.map((place, i) => {
    if (place.status === "rejected") throw place.reason;
    return runEvaluatorOf(task.evaluators[i]!, place.value);
  });
}

/** A chained evaluation task, as a RUN_EXPERIMENT run starts it on the experiment it made. */
export interface ChainedTask {
  task_id: string;
  account_id: string;
  space_id: string;
  is_continuous: boolean;
  evaluators: RunEvaluator[];
  /** Who triggered the RUN_EXPERIMENT run: the chained run is theirs too. */
  created_by_user_id: string;
}

/**
 * The evaluation tasks a RUN_EXPERIMENT run triggers when it completes: each one the caller
 * may trigger (404, 403), a dataset task on the same dataset (422); their evaluators resolved
 * now, while the caller is there to ask on.
 */
async function chainedTasks(
  deps: TasksDeps,
  ctx: CallContext,
  task: TaskRow,
  ids: readonly string[],
): Promise<ChainedTask[]> {
  const chained: ChainedTask[] = [];
  for (const id of new Set(ids)) {
    const t = await taskRow(deps.pool, ctx, id);
    await requirePermissionAt(
      deps.spaces,
      ctx,
      placeOf(t),
      accessOf(kindOf(t)),
      permissionOf(kindOf(t), "UPDATE"),
    );
    if (t.task_type === "RUN_EXPERIMENT" || t.dataset_id !== task.dataset_id)
      throw unprocessable(
        "every evaluation_task_id must be an evaluation task on the RUN_EXPERIMENT task's dataset",
      );
    chained.push({
      task_id: t.id,
      account_id: t.account_id,
      space_id: t.space_id,
      is_continuous: t.is_continuous,
      evaluators: await resolvedEvaluators(deps, ctx, t),
      created_by_user_id: ctx.principal.userId,
    });
  }
  return chained;
}

const nameTaken = (name: string) =>
  new DomainError(
    "resource-conflict",
    `an experiment named ${JSON.stringify(name)} already exists on the task's dataset, or a run is making it`,
  );

/**
 * What a run needs to know, fixed when it is triggered (the caller is there to ask on):
 * the window or experiments, and each evaluator's version (the pinned one, else the latest
 * now) with its config.
 */
async function optionsOf(
  deps: TasksDeps,
  ctx: CallContext,
  task: TaskRow,
  req: TriggerRunRequest,
): Promise<{ options: Record<string, unknown>; start: Date | null; end: Date | null }> {
  const fields = new Set(req.fields);
  const allowed = task.task_type === "RUN_EXPERIMENT" ? EXPERIMENT_FIELDS : EVALUATION_FIELDS;
  const wrong = [...fields].filter((f) => !allowed.has(f));
  if (wrong.length > 0)
    throw invalid(
      `${wrong.join(", ")} ${wrong.length > 1 ? "are" : "is"} not valid when triggering a ${task.task_type} task`,
    );
  if (task.task_type === "RUN_EXPERIMENT") {
    const name = req.experimentName;
    if (!name || name.length > 255 || /["\\]/.test(name))
      throw invalid(
        "experiment_name must be 1 to 255 characters, without double quotes or backslashes",
      );
    if (req.exampleIds.length > 0 && req.maxExamples > 0)
      throw invalid("example_ids and max_examples are mutually exclusive");
    // The public API: a name already used on the dataset is a 409 at the trigger, not a run
    // that fails later. A run still making its experiment holds the name too (the unique index
    // task_runs_experiment_name, which also orders two triggers racing for one name).
    if (await deps.places.experimentNamed(ctx, task.dataset_id!, name)) throw nameTaken(name);
    if (fields.has("max_examples") && req.maxExamples < 1)
      throw invalid("max_examples must be at least 1");
    checkFilterSyntax("query_filter", req.queryFilter);
    return {
      options: {
        // Chosen now, so a run resumed by another worker finds the experiment it made.
        experiment_id: uuidv7(),
        experiment_name: name,
        // Where the name is unique: the dataset's (task_runs_experiment_name).
        experiment_dataset_id: task.dataset_id,
        dataset_version_id: req.datasetVersionId || null,
        example_ids: req.exampleIds,
        max_examples: req.maxExamples || null,
        query_filter: req.queryFilter || null,
        evaluation_task_ids: req.evaluationTaskIds,
        chained: await chainedTasks(deps, ctx, task, req.evaluationTaskIds),
      },
      start: null,
      end: null,
    };
  }
  const common = {
    override_evaluations: req.overrideEvaluations,
    evaluators: await resolvedEvaluators(deps, ctx, task),
  };
  if (task.dataset_id) {
    if (fields.has("data_start_time") || fields.has("data_end_time") || fields.has("max_spans"))
      throw invalid(
        "data_start_time, data_end_time and max_spans are not applicable to dataset-based tasks",
      );
    let experiments = task.experiment_ids;
    if (req.experimentIds.length > 0) {
      for (const id of req.experimentIds) {
        const e = await deps.places.experiment(ctx, id);
        if (e.datasetId !== task.dataset_id)
          throw unprocessable("every experiment_id must be an experiment of the task's dataset");
      }
      experiments = [...new Set(req.experimentIds)];
    }
    return { options: { ...common, experiment_ids: experiments }, start: null, end: null };
  }
  if (fields.has("experiment_ids"))
    throw invalid("experiment_ids are only for dataset-based tasks");
  const startRaw = req.dataStartTime || task.last_run_at?.toISOString();
  if (!startRaw) throw invalid("data_start_time is required on a project task's first run");
  const start = time(startRaw, "data_start_time");
  const end = req.dataEndTime ? time(req.dataEndTime, "data_end_time") : deps.clock.now();
  if (end <= start) throw invalid("data_end_time must be after data_start_time");
  if (fields.has("max_spans") && req.maxSpans < 1) throw invalid("max_spans must be at least 1");
  return {
    options: { ...common, max_spans: req.maxSpans || DEFAULT_MAX_SPANS },
    start,
    end,
  };
}

export function taskRunCommands(deps: TasksDeps) {
  const { pool, spaces } = deps;

  async function permitted(ctx: CallContext, task: TaskRow) {
    const kind = kindOf(task);
    await requirePermissionAt(
      spaces,
      ctx,
      placeOf(task),
      accessOf(kind),
      permissionOf(kind, "UPDATE"),
    );
  }

  return {
    async triggerRun(req: TriggerRunRequest, ctx: CallContext): Promise<TaskRun> {
      const task = await taskRow(pool, ctx, req.taskId);
      await permitted(ctx, task);
      const { options, start, end } = await optionsOf(deps, ctx, task, req);
      const id = uuidv7();
      const data: TaskRunCreated["data"] = {
        id,
        task_id: task.id,
        account_id: task.account_id,
        space_id: task.space_id,
        options,
        data_start_time: start?.toISOString() ?? null,
        data_end_time: end?.toISOString() ?? null,
        created_by_user_id: ctx.principal.userId,
        created_at: deps.clock.now().toISOString(),
      };
      const name = data.options.experiment_name;
      await createRun(deps.commands, data, actorMetadata(ctx), {
        conflicts: {
          task_runs_experiment_name: nameTaken(typeof name === "string" ? name : "").message,
        },
      });
      return toRun(await runRow(pool, ctx, id));
    },

    async cancelRun(req: CancelRunRequest, ctx: CallContext): Promise<TaskRun> {
      const run = await runRow(pool, ctx, req.id);
      const task = await taskRow(pool, ctx, run.task_id);
      await permitted(ctx, task);
      await deps.commands.handle(
        streamId("task_run", run.id),
        runDecider,
        {
          build: async (_state, client) => {
            // The counts as the worker has them now: a cancelled run keeps its progress.
            const now = await runRow(client, ctx, run.id);
            return {
              type: "CancelRun",
              counts: {
                num_successes: now.num_successes,
                num_errors: now.num_errors,
                num_skipped: now.num_skipped,
              },
              isContinuous: task.is_continuous,
              now: deps.clock.now(),
            } as const;
          },
        },
        actorMetadata(ctx),
      );
      return toRun(await runRow(pool, ctx, run.id));
    },
  };
}
