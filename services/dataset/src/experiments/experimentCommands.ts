import type { PoolClient } from "pg";
import { streamId, type ExperimentRunsEvent } from "@argus/contracts";
import { chunkBySize, withBusCut, type CommandScope, type RowLock } from "@argus/eventstore";
import { uuidv7, type CallContext, notFound } from "@argus/platform";
import { requireCreatable, spaceMetadata } from "@argus/spaces";
import type {
  CreateExperimentRequest,
  DeleteExperimentRequest,
  DeleteExperimentResponse,
  ExperimentWrite,
  InsertExperimentRunsRequest,
} from "@argus/proto/dataset/v1/dataset";
import { loadDataset, lockLatestVersion } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { EVENT_EXAMPLE_BYTES, orderedIds } from "../examples/exampleEvents.ts";
import { versionWithPresent } from "../examples/exampleRows.ts";
import { invalid, unprocessable } from "../shared/problemRules.ts";
import { experimentDecider } from "./experimentDecider.ts";
import {
  loadExperiment,
  lockExperiment,
  toExperiment,
  type ExperimentRow,
} from "./experimentRows.ts";
import { parseRuns, type ParsedRun } from "./experimentRunRules.ts";

/** Runs as events that each fit one NATS message. */
export function runEvents(
  experiment: { id: string; spaceId: string },
  runs: readonly ParsedRun[],
  ids: readonly string[],
  now: Date,
): ExperimentRunsEvent[] {
  const withIds = runs.map((r, i) => ({ ...r, id: ids[i]! }));
  return chunkBySize(withIds, (r) => r.bytes + 128, EVENT_EXAMPLE_BYTES).map((chunk) => ({
    type: "ExperimentRunsInserted",
    data: withBusCut({
      experiment_id: experiment.id,
      space_id: experiment.spaceId,
      runs: chunk.map((r) => ({
        id: r.id,
        example_id: r.exampleId,
        output: r.output,
        fields: r.fields,
      })),
      at: now.toISOString(),
    }),
  }));
}

/** Every example a run names must be in the dataset version the experiment ran against. */
async function requireExamples(
  client: PoolClient,
  datasetId: string,
  versionId: string,
  runs: readonly ParsedRun[],
): Promise<void> {
  const named = [...new Set(runs.flatMap((r) => (r.exampleId ? [r.exampleId] : [])))];
  const found = await versionWithPresent(client, datasetId, versionId, named);
  if (!found) throw notFound("dataset version");
  const { present } = found;
  const missing = runs.findIndex((r) => r.exampleId !== null && !present.has(r.exampleId));
  if (missing !== -1)
    throw unprocessable(
      `experiment_runs[${missing}].example_id is not an example of the experiment's dataset version`,
    );
}

/**
 * Create, delete and run inserts of experiments. Runs, like examples, are unbounded: their
 * stream is never folded, and writes take the experiment's row lock first (`appendLocked`).
 */
export function experimentCommands(deps: DatasetDeps) {
  async function appendRuns(
    scope: CommandScope,
    ctx: CallContext,
    lock: RowLock<ExperimentRow>,
    runs: readonly ParsedRun[],
    now: Date,
  ): Promise<string[]> {
    const experiment = { id: lock.row.id, spaceId: lock.row.space_id };
    const ids = orderedIds(runs.length, now);
    await scope.appendLocked(
      lock,
      streamId("experiment_runs", experiment.id),
      runEvents(experiment, runs, ids, now),
      spaceMetadata(ctx, experiment.spaceId),
    );
    return ids;
  }

  return {
    async createExperiment(
      req: CreateExperimentRequest,
      ctx: CallContext,
    ): Promise<ExperimentWrite> {
      if ((req.datasetId === "") === (req.spaceId === ""))
        throw invalid("give exactly one of dataset_id and space_id");
      const runs = parseRuns(req.runs, req.datasetId !== "");
      const dataset = req.datasetId
        ? await loadDataset(deps, ctx, req.datasetId, "EXPERIMENT_CREATE")
        : undefined;
      if (!dataset) await requireCreatable(deps.spaces, ctx, req.spaceId, "EXPERIMENT_CREATE");
      const spaceId = dataset?.space_id ?? req.spaceId;
      const id = uuidv7();
      const taken = `an experiment named ${JSON.stringify(req.name)} already exists ${dataset ? "on this dataset" : "in this space"}`;
      return deps.commands.transact(
        async (scope) => {
          const now = deps.clock.now();
          let on: { id: string; versionId: string } | null = null;
          if (dataset) {
            const { version } = await lockLatestVersion(scope.client, dataset.id);
            on = { id: dataset.id, versionId: version.id };
            await requireExamples(scope.client, dataset.id, version.id, runs);
          }
          const { state } = await scope.decide(
            streamId("experiment", id),
            experimentDecider,
            {
              type: "CreateExperiment",
              id,
              accountId: ctx.principal.accountId,
              spaceId,
              name: req.name,
              dataset: on,
              now,
            },
            spaceMetadata(ctx, spaceId),
          );
          if (state.status !== "live") throw new Error("experiment not created");
          // Nobody else knows the new experiment yet: its lock, free, is the runs' all the same.
          const lock = await lockExperiment(scope, id);
          if (!lock) throw new Error(`experiment ${id} was not projected`);
          const runIds = await appendRuns(scope, ctx, lock, runs, now);
          const at = now.toISOString();
          return {
            experiment: {
              id,
              spaceId,
              name: req.name,
              datasetId: on?.id ?? "",
              datasetVersionId: on?.versionId ?? "",
              createdAt: at,
              updatedAt: at,
              integrationId: "",
            },
            runIds,
          };
        },
        { conflicts: { experiments_name_per_dataset: taken, experiments_name_per_space: taken } },
      );
    },

    async deleteExperiment(
      req: DeleteExperimentRequest,
      ctx: CallContext,
    ): Promise<DeleteExperimentResponse> {
      const row = await loadExperiment(deps, ctx, req.id, "EXPERIMENT_DELETE");
      await deps.commands.handle(
        streamId("experiment", row.id),
        experimentDecider,
        { type: "DeleteExperiment", now: deps.clock.now() },
        spaceMetadata(ctx, row.space_id),
      );
      return {};
    },

    async insertExperimentRuns(
      req: InsertExperimentRunsRequest,
      ctx: CallContext,
    ): Promise<ExperimentWrite> {
      const checked = await loadExperiment(deps, ctx, req.experimentId, "EXPERIMENT_UPDATE");
      const runs = parseRuns(req.runs, checked.dataset_id !== null);
      return deps.commands.transact(async (scope) => {
        const lock = await lockExperiment(scope, checked.id);
        if (!lock) throw notFound("experiment");
        const row = lock.row;
        if (row.dataset_id && row.dataset_version_id)
          await requireExamples(scope.client, row.dataset_id, row.dataset_version_id, runs);
        const now = deps.clock.now();
        const runIds = await appendRuns(scope, ctx, lock, runs, now);
        return {
          experiment: toExperiment({ ...row, updated_at: now }),
          runIds,
        };
      });
    },
  };
}
