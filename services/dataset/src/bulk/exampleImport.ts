import { streamId, type DatasetExamplesImported } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { DomainError, uuidv7, type CallContext } from "@argus/platform";
import { requireCreatable, spaceMetadata } from "@argus/spaces";
import type { ImportDatasetMessage, ImportDatasetResponse } from "@argus/proto/dataset/v1/bulk";
import { datasetDecider, type DatasetCommand } from "../datasets/datasetDecider.ts";
import { lockDataset } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { requireInsertableColumns } from "../examples/exampleRules.ts";
import { FIRST_VERSION_NAME } from "../shared/access.ts";
import { columnNames, requireRowFields, stageUpload, startOf, uploadOf } from "./imports.ts";
import { LIMITS } from "@argus/contracts";
import { claimImport } from "./staging.ts";

const nameTaken = (name: string) =>
  `a dataset named ${JSON.stringify(name)} already exists in this space`;

/**
 * A bulk upload of a new dataset (an Arrow Flight createDataset). The checks REST's create
 * makes come first, before a row is read: DATASET_CREATE in the space, the name (rules and
 * uniqueness), the columns. Rows are staged as they arrive; the end commits, in one
 * transaction, the dataset and its first version (the decider's DatasetCreated and
 * DatasetVersionCreated, as REST's) and one DatasetExamplesImported for all its examples.
 */
export function exampleImport(deps: DatasetDeps) {
  return async (
    requests: AsyncIterable<ImportDatasetMessage>,
    ctx: CallContext,
  ): Promise<ImportDatasetResponse> => {
    const messages = uploadOf(requests);
    const start = await startOf(messages);
    await requireCreatable(deps.spaces, ctx, start.spaceId, "DATASET_CREATE");
    requireInsertableColumns(columnNames(start.columns));
    const now = deps.clock.now();
    const create: DatasetCommand = {
      type: "CreateDataset",
      id: uuidv7(now.getTime()),
      accountId: ctx.principal.accountId,
      spaceId: start.spaceId,
      name: start.name,
      firstVersion: { id: uuidv7(now.getTime()), name: FIRST_VERSION_NAME },
      now,
    };
    // The decider's own rules (the name's), before anything is staged.
    datasetDecider.decide(create, datasetDecider.initialState);
    const taken = await tracedQuery(
      deps.pool,
      "dataset name taken",
      "select 1 from datasets where space_id = $1 and name = $2",
      [start.spaceId, start.name],
    );
    if (taken.rowCount) throw new DomainError("resource-conflict", nameTaken(start.name));

    const upload = {
      pool: deps.pool,
      kind: "examples" as const,
      accountId: ctx.principal.accountId,
      now,
      max: LIMITS.EXAMPLES_PER_IMPORT_MAX,
    };
    const rowTexts = function* (
      rows: { fieldsJson: string[] },
      first: number,
      nextId: () => string,
    ) {
      for (const [i, fields] of rows.fieldsJson.entries()) {
        requireRowFields(fields, first + i);
        yield `{"id":"${nextId()}","fields":${fields}}`;
      }
    };
    return stageUpload(messages, upload, rowTexts, async (importId, count) => {
      const meta = spaceMetadata(ctx, start.spaceId);
      const imported: DatasetExamplesImported = {
        type: "DatasetExamplesImported",
        data: {
          dataset_id: create.id,
          space_id: start.spaceId,
          version_id: create.firstVersion.id,
          import_id: importId,
          count,
          columns: start.columns.map((c) => ({ name: c.name, kinds: c.kinds })),
          at: now.toISOString(),
        },
      };
      await deps.commands.transact(
        async (scope) => {
          await claimImport(scope.client, importId);
          await scope.decide(streamId("dataset", create.id), datasetDecider, create, meta);
          // Nobody else knows the new dataset yet: its lock, free, is the examples' all the same.
          const lock = await lockDataset(scope, create.id);
          if (!lock) throw new Error(`dataset ${create.id} was not projected`);
          await scope.appendLocked(lock, streamId("dataset_examples", create.id), [imported], meta);
        },
        { conflicts: { datasets_name_per_space: nameTaken(start.name) } },
      );
      const at = now.toISOString();
      return {
        dataset: {
          id: create.id,
          spaceId: start.spaceId,
          name: start.name,
          createdAt: at,
          updatedAt: at,
          versions: [],
        },
        versionId: create.firstVersion.id,
        exampleCount: BigInt(count),
      };
    });
  };
}
