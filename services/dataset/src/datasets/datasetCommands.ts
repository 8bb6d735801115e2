import { streamId } from "@argus/contracts";
import { uuidv7, type CallContext, notFound } from "@argus/platform";
import { requireCreatable, spaceMetadata } from "@argus/spaces";
import type {
  CreateDatasetRequest,
  Dataset,
  DatasetWrite,
  DeleteDatasetRequest,
  DeleteDatasetResponse,
  UpdateDatasetRequest,
} from "@argus/proto/dataset/v1/dataset";
import type { CommandScope, EventMetadata } from "@argus/eventstore";
import type { DatasetDeps } from "../deps.ts";
import { insertedEvents, orderedIds } from "../examples/exampleEvents.ts";
import { parseExamples } from "../examples/exampleRules.ts";
import { experimentDecider } from "../experiments/experimentDecider.ts";
import { experimentIdsOf } from "../experiments/experimentRows.ts";
import { FIRST_VERSION_NAME } from "../shared/access.ts";
import { datasetDecider, type DatasetCommand } from "./datasetDecider.ts";
import {
  findDataset,
  loadDataset,
  lockDataset,
  toDataset,
  type DatasetRow,
} from "./datasetRows.ts";

const nameConflict = (name: string) => ({
  datasets_name_per_space: `a dataset named ${JSON.stringify(name)} already exists in this space`,
});

/**
 * Deletes a dataset and its experiments in one transaction. The dataset's row lock comes
 * first, as for every write to it, so no experiment is created on it meanwhile.
 */
export async function deleteDatasetIn(
  scope: CommandScope,
  id: string,
  metadata: EventMetadata,
  now: Date,
): Promise<void> {
  if (!(await findDataset(scope.client, id, true))) throw notFound("dataset");
  for (const experimentId of await experimentIdsOf(scope.client, "dataset_id", id))
    await scope.decide(
      streamId("experiment", experimentId),
      experimentDecider,
      { type: "DeleteExperiment", now },
      metadata,
    );
  await scope.decide(
    streamId("dataset", id),
    datasetDecider,
    { type: "DeleteDataset", now },
    metadata,
  );
}

/** Create (with its first version and examples), rename and delete of datasets. */
export function datasetCommands(deps: DatasetDeps) {
  /**
   * A command on the dataset's stream, after its row lock: every writer of a dataset takes that
   * lock first, so none waits for a lock another holds while holding one it waits for.
   */
  const run = (ctx: CallContext, row: DatasetRow, command: DatasetCommand, conflicts = {}) =>
    deps.commands.transact(
      async (scope) => {
        if (!(await findDataset(scope.client, row.id, true))) throw notFound("dataset");
        return scope.decide(
          streamId("dataset", row.id),
          datasetDecider,
          command,
          spaceMetadata(ctx, row.space_id),
        );
      },
      { conflicts },
    );

  return {
    async createDataset(req: CreateDatasetRequest, ctx: CallContext): Promise<DatasetWrite> {
      const examples = parseExamples(
        req.examples.map((e) => ({ id: "", fieldsJson: e.fieldsJson })),
        "insert",
      );
      await requireCreatable(deps.spaces, ctx, req.spaceId, "DATASET_CREATE");
      const now = deps.clock.now();
      const id = uuidv7(now.getTime());
      const version = { id: uuidv7(now.getTime()), name: FIRST_VERSION_NAME };
      const ids = orderedIds(examples.length, now);
      const meta = spaceMetadata(ctx, req.spaceId);
      await deps.commands.transact(
        async (scope) => {
          await scope.decide(
            streamId("dataset", id),
            datasetDecider,
            {
              type: "CreateDataset",
              id,
              accountId: ctx.principal.accountId,
              spaceId: req.spaceId,
              name: req.name,
              firstVersion: version,
              now,
            },
            meta,
          );
          // Nobody else knows the new dataset yet: its lock, free, is the examples' all the same.
          const lock = await lockDataset(scope, id);
          if (!lock) throw new Error(`dataset ${id} was not projected`);
          await scope.appendLocked(
            lock,
            streamId("dataset_examples", id),
            insertedEvents(
              { datasetId: id, spaceId: req.spaceId, versionId: version.id, now },
              examples,
              ids,
            ),
            meta,
          );
        },
        { conflicts: nameConflict(req.name) },
      );
      const at = now.toISOString();
      return {
        dataset: {
          id,
          spaceId: req.spaceId,
          name: req.name,
          createdAt: at,
          updatedAt: at,
          versions: [],
        },
        versionId: version.id,
        exampleIds: ids,
        examplePositions: [],
      };
    },

    async updateDataset(req: UpdateDatasetRequest, ctx: CallContext): Promise<Dataset> {
      const row = await loadDataset(deps, ctx, req.id, "DATASET_UPDATE");
      await run(
        ctx,
        row,
        { type: "RenameDataset", name: req.name, now: deps.clock.now() },
        nameConflict(req.name),
      );
      return toDataset((await findDataset(deps.pool, row.id)) ?? row);
    },

    async deleteDataset(
      req: DeleteDatasetRequest,
      ctx: CallContext,
    ): Promise<DeleteDatasetResponse> {
      const row = await loadDataset(deps, ctx, req.id, "DATASET_DELETE");
      await deps.commands.transact((scope) =>
        deleteDatasetIn(scope, row.id, spaceMetadata(ctx, row.space_id), deps.clock.now()),
      );
      return {};
    },
  };
}
