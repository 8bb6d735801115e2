import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { LIMITS, streamId } from "@argus/contracts";
import { compileFilter } from "@argus/filter";
import { clampLimit, fetchSize, notFound, pageOf, type CallContext } from "@argus/platform";
import type {
  ExamplesToRunRequest,
  ExamplesToRunResponse,
  RecordRunEvaluationsRequest,
  RecordRunEvaluationsResponse,
  RecordTaskExperimentRunsRequest,
  RecordTaskExperimentRunsResponse,
  RunsToEvaluateRequest,
  RunsToEvaluateResponse,
  StartTaskExperimentRequest,
  StartTaskExperimentResponse,
} from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { orderedIds } from "../commands/exampleEvents.ts";
import { runEvents } from "../commands/experiments.ts";
import { experimentDecider } from "../domain/experiment.ts";
import { invalid } from "../domain/lifecycle.ts";
import { parseRuns } from "../domain/runs.ts";
import { examplePage } from "../projections/exampleRows.ts";
import { cutPage, exampleColumns } from "./examples.ts";
import { findExperiment, type ExperimentRow } from "../projections/experimentRows.ts";
import { findDataset, findVersion, type DatasetRow } from "../projections/rows.ts";
import type { DatasetDeps } from "../service.ts";

/** Runs a page may hold (a task's worker reads them in batches). */
const RUNS_PAGE_MAX = 500;

/** The experiment when it is in the account the task runner names; else 404. */
async function experimentOf(
  db: Pool | PoolClient,
  accountId: string,
  id: string,
  lock = false,
): Promise<ExperimentRow> {
  const row = isUuid(id) ? await findExperiment(db, id, lock) : undefined;
  if (!row || row.account_id !== accountId) throw notFound("experiment");
  return row;
}

/** Events written for a task's run: in the task's account and space, by the task. */
const byTask = (req: { accountId: string; taskId: string }, spaceId: string, ctx: CallContext) => ({
  account_id: req.accountId,
  space_id: spaceId,
  actor: `task:${req.taskId}`,
  request_id: ctx.requestId,
});

/** The dataset when it is in the account the task runner names; else 404. */
async function datasetOf(
  db: Pool | PoolClient,
  accountId: string,
  id: string,
  lock = false,
): Promise<DatasetRow> {
  const row = isUuid(id) ? await findDataset(db, id, lock) : undefined;
  if (!row || row.account_id !== accountId) throw notFound("dataset");
  return row;
}

/**
 * The task runner's access to experiment runs (RunEvaluationDirectory): a task's run has no
 * caller, so the task runner asks on its own behalf, for the account of the task; it
 * authorized the task's creator when the task was made.
 */
export function runEvaluationQueries(deps: DatasetDeps) {
  return {
    async runsToEvaluate(req: RunsToEvaluateRequest): Promise<RunsToEvaluateResponse> {
      const experiment = await experimentOf(deps.pool, req.accountId, req.experimentId);
      const res = await tracedQuery<{
        id: string;
        example_id: string | null;
        output: string;
        fields_json: string;
        example_fields_json: string | null;
      }>(
        deps.pool,
        "runs to evaluate",
        `select r.id, r.example_id, r.output, r.fields::text as fields_json,
                (select e.fields::text from examples e
                  where e.dataset_id = $4 and e.id = r.example_id
                  order by (e.version_id = $5) desc, e.version_id desc limit 1)
                  as example_fields_json
           from experiment_runs r
          where r.experiment_id = $1 and ($2::uuid is null or r.id > $2)
          order by r.id
          limit $3`,
        [
          experiment.id,
          isUuid(req.page?.after ?? "") ? req.page!.after : null,
          fetchSize(req.page, RUNS_PAGE_MAX),
          experiment.dataset_id,
          experiment.dataset_version_id,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id, RUNS_PAGE_MAX);
      return {
        experimentId: experiment.id,
        datasetId: experiment.dataset_id ?? "",
        spaceId: experiment.space_id,
        runs: items.map((r) => ({
          id: r.id,
          exampleId: r.example_id ?? "",
          output: r.output,
          fieldsJson: r.fields_json,
          exampleFieldsJson: r.example_fields_json ?? "{}",
        })),
        page: { nextAfter },
      };
    },

    async examplesToRun(req: ExamplesToRunRequest): Promise<ExamplesToRunResponse> {
      const dataset = await datasetOf(deps.pool, req.accountId, req.datasetId);
      const version = await findVersion(deps.pool, dataset.id, req.datasetVersionId);
      if (!version) throw notFound("dataset version");
      // Parameters $1–$4 are the page's own.
      const clauses: string[] = [];
      const params: unknown[] = [];
      if (req.exampleIds.length > 0) {
        params.push(req.exampleIds.filter(isUuid));
        clauses.push("x.id = any($5::uuid[])");
      }
      if (req.filter.trim() !== "") {
        const compiled = compileFilter(req.filter, exampleColumns, 5 + params.length);
        clauses.push(`(${compiled.sql})`);
        params.push(...compiled.params);
      }
      const rows = await examplePage(
        deps.pool,
        version,
        isUuid(req.page?.after ?? "") ? req.page!.after : "",
        clampLimit(req.page?.limit, LIMITS.EXAMPLES_PAGE_MAX) + 1,
        clauses.length > 0 ? { sql: clauses.join(" and "), params } : undefined,
      );
      const { items, nextAfter } = cutPage(rows, req.page, (r) => r.fields_json.length);
      return {
        datasetId: dataset.id,
        datasetVersionId: version.id,
        spaceId: dataset.space_id,
        examples: items.map((r) => ({ id: r.id, fieldsJson: r.fields_json })),
        page: { nextAfter },
      };
    },

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
          const dataset = await datasetOf(scope.client, req.accountId, req.datasetId, true);
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
              now: new Date(),
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
        const experiment = await experimentOf(scope.client, req.accountId, req.experimentId, true);
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
        const now = new Date();
        await scope.appendLocked(
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

    /** Under the experiment's row lock, as every write of its runs; runs gone are skipped. */
    async recordRunEvaluations(
      req: RecordRunEvaluationsRequest,
      ctx: CallContext,
    ): Promise<RecordRunEvaluationsResponse> {
      if (req.evaluations.length === 0) return {};
      await deps.commands.transact(async (scope) => {
        const experiment = await experimentOf(scope.client, req.accountId, req.experimentId, true);
        await scope.appendLocked(
          streamId("experiment_runs", experiment.id),
          [
            {
              type: "ExperimentRunsEvaluated",
              data: {
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
                at: new Date().toISOString(),
              },
            },
          ],
          byTask(req, experiment.space_id, ctx),
        );
      });
      return {};
    },
  };
}
