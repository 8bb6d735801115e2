import type { Pool, PoolClient } from "pg";
import { streamId } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { fetchSize, notFound, pageOf, type CallContext } from "@argus/platform";
import type {
  RecordRunEvaluationsRequest,
  RecordRunEvaluationsResponse,
  RunsToEvaluateRequest,
  RunsToEvaluateResponse,
} from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { findExperiment, type ExperimentRow } from "../projections/experimentRows.ts";
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
          {
            account_id: req.accountId,
            space_id: experiment.space_id,
            actor: `task:${req.taskId}`,
            request_id: ctx.requestId,
          },
        );
      });
      return {};
    },
  };
}
