import { tracedQuery, withBusCut } from "@argus/eventstore";
import { streamId } from "@argus/contracts";
import { notFound, type CallContext } from "@argus/platform";
import type {
  RecordRunEvaluationsRequest,
  RecordRunEvaluationsResponse,
  RecordTaskExperimentRunsRequest,
  RecordTaskExperimentRunsResponse,
  StartTaskExperimentRequest,
  StartTaskExperimentResponse,
} from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { datasetInAccount, findVersion } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { orderedIds } from "../examples/exampleEvents.ts";
import { invalid } from "../shared/problemRules.ts";
import { runEvents } from "./experimentCommands.ts";
import { experimentDecider } from "./experimentDecider.ts";
import { findExperiment, lockExperimentInAccount } from "./experimentRows.ts";
import { parseRuns } from "./experimentRunRules.ts";

/** Events written for a task's run: in the task's account and space, by the task. */
const byTask = (req: { accountId: string; taskId: string }, spaceId: string, ctx: CallContext) => ({
  account_id: req.accountId,
  space_id: spaceId,
  actor: `task:${req.taskId}`,
  request_id: ctx.requestId,
});

/**
 * The task runner's writes of experiments and runs (RunEvaluationDirectory): a task's run has
 * no caller, so the task runner asks on its own behalf, for the account of the task; it
 * authorized the task's creator when the task was made. Its reads: runEvaluationQueries.ts.
 */
export function runEvaluationCommands(deps: DatasetDeps) {
  return {
    /** The experiment under the id the run chose: made once, found again on a resumed run. */
    async startTaskExperiment(
      req: StartTaskExperimentRequest,
      ctx: CallContext,
    ): Promise<StartTaskExperimentResponse> {
      if (!isUuid(req.experimentId)) throw invalid("experiment_id must be a uuid");
      const made = await findExperiment(deps.pool, req.experimentId);
      if (made) {
        if (made.account_id !== req.accountId) throw notFound("experiment");
        return { experimentId: made.id };
      }
      const taken = `an experiment named ${JSON.stringify(req.name)} already exists on this dataset`;
      return deps.commands.transact(
        async (scope) => {
          // The dataset's lock: it is not deleted under the new experiment.
          const dataset = await datasetInAccount(scope.client, req.accountId, req.datasetId, true);
          const version = await findVersion(scope.client, dataset.id, req.datasetVersionId);
          if (!version) throw notFound("dataset version");
          await scope.decide(
            streamId("experiment", req.experimentId),
            experimentDecider,
            {
              type: "CreateExperiment",
              id: req.experimentId,
              accountId: req.accountId,
              spaceId: dataset.space_id,
              name: req.name,
              dataset: { id: dataset.id, versionId: version.id },
              ...(isUuid(req.integrationId) ? { integrationId: req.integrationId } : {}),
              now: deps.clock.now(),
            },
            byTask(req, dataset.space_id, ctx),
          );
          return { experimentId: req.experimentId };
        },
        { conflicts: { experiments_name_per_dataset: taken } },
      );
    },

    /** Under the experiment's row lock; examples that have a run already are left as they are. */
    async recordTaskExperimentRuns(
      req: RecordTaskExperimentRunsRequest,
      ctx: CallContext,
    ): Promise<RecordTaskExperimentRunsResponse> {
      if (req.runs.length === 0) return {};
      const parsed = parseRuns(
        req.runs.map((r) => ({ exampleId: r.exampleId, output: r.output, fieldsJson: "{}" })),
        true,
      );
      await deps.commands.transact(async (scope) => {
        const lock = await lockExperimentInAccount(scope, req.accountId, req.experimentId);
        const experiment = lock.row;
        const present = await tracedQuery<{ example_id: string }>(
          scope.client,
          "experiment runs present",
          `select example_id from experiment_runs
            where experiment_id = $1 and example_id = any($2::uuid[])`,
          [experiment.id, parsed.map((r) => r.exampleId)],
        );
        const had = new Set(present.rows.map((r) => r.example_id));
        const fresh = parsed.filter((r) => !had.has(r.exampleId!));
        if (fresh.length === 0) return;
        const now = deps.clock.now();
        await scope.appendLocked(
          lock,
          streamId("experiment_runs", experiment.id),
          runEvents(
            { id: experiment.id, spaceId: experiment.space_id },
            fresh,
            orderedIds(fresh.length, now),
            now,
          ),
          byTask(req, experiment.space_id, ctx),
        );
      });
      return {};
    },

    /**
     * Under the experiment's row lock, as every write of its runs; runs gone are skipped. The
     * projection is one statement with the append, and COMMIT goes right behind it.
     */
    async recordRunEvaluations(
      req: RecordRunEvaluationsRequest,
      ctx: CallContext,
    ): Promise<RecordRunEvaluationsResponse> {
      if (req.evaluations.length === 0) return {};
      await deps.commands.transact(async (scope) => {
        const lock = await lockExperimentInAccount(scope, req.accountId, req.experimentId);
        const experiment = lock.row;
        await scope.appendLockedLast(
          lock,
          streamId("experiment_runs", experiment.id),
          [
            {
              type: "ExperimentRunsEvaluated",
              data: withBusCut({
                experiment_id: experiment.id,
                space_id: experiment.space_id,
                task_id: req.taskId,
                evaluations: req.evaluations.map((e) => ({
                  run_id: e.runId,
                  name: e.name,
                  label: e.label ?? null,
                  score: e.score ?? null,
                  explanation: e.explanation ?? null,
                })),
                at: deps.clock.now().toISOString(),
              }),
            },
          ],
          byTask(req, experiment.space_id, ctx),
        );
      });
      return {};
    },
  };
}
