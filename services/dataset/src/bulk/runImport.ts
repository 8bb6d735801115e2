import type { PoolClient } from "pg";
import { LIMITS, streamId, type ExperimentRunsImported } from "@argus/contracts";
import { tracedQuery } from "@argus/eventstore";
import { uuidv7, type CallContext, notFound } from "@argus/platform";
import { isUuid, spaceMetadata } from "@argus/spaces";
import type {
  CreateExperimentEntryRequest,
  ImportRunsMessage,
  ImportRunsResponse,
} from "@argus/proto/dataset/v1/bulk";
import type { Experiment } from "@argus/proto/dataset/v1/dataset";
import { findVersion, loadDataset, lockLatestVersion } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { experimentDecider } from "../experiments/experimentDecider.ts";
import { loadExperiment, lockExperiment, toExperiment } from "../experiments/experimentRows.ts";
import { requireRunColumns } from "../experiments/experimentRunRules.ts";
import { unprocessable } from "../shared/problemRules.ts";
import { columnNames, requireRowFields, stageUpload, startOf, uploadOf } from "./imports.ts";
import { claimImport } from "./staging.ts";

const nameTaken = (name: string) =>
  `an experiment named ${JSON.stringify(name)} already exists on this dataset`;

/**
 * The first run (in upload order) whose example is not one of the version's, or null: over the
 * staged rows, in the transaction that commits them, as REST checks each insert's runs.
 */
async function firstRunWithoutExample(
  client: PoolClient,
  importId: string,
  datasetId: string,
  lineage: readonly string[],
): Promise<number | null> {
  const res = await tracedQuery<{ n: string | null }>(
    client,
    "import runs without example",
    `select min(x.n)::text as n
       from import_chunks c
       cross join lateral jsonb_to_recordset(c.rows::jsonb) as x(n bigint, example_id uuid)
      where c.import_id = $1
        and not exists (
          select 1 from (select distinct on (e.id) e.deleted
                           from examples e
                          where e.dataset_id = $2 and e.version_id = any($3::uuid[])
                            and e.id = x.example_id
                          order by e.id, array_position($3::uuid[], e.version_id)) f
           where not f.deleted)`,
    [importId, datasetId, lineage],
  );
  const n = res.rows[0]?.n;
  return n === null || n === undefined ? null : Number(n);
}

export function runImport(deps: DatasetDeps) {
  return {
    /**
     * An experiment without runs on the dataset's latest version (the SDK's
     * create_experiment_db_entry): REST's create, its permission, rules and events, without
     * its first runs, which a bulk upload brings next.
     */
    async createExperimentEntry(
      req: CreateExperimentEntryRequest,
      ctx: CallContext,
    ): Promise<Experiment> {
      const dataset = await loadDataset(deps, ctx, req.datasetId, "EXPERIMENT_CREATE");
      const id = uuidv7();
      return deps.commands.transact(
        async (scope) => {
          const now = deps.clock.now();
          const { dataset: row, version } = await lockLatestVersion(scope.client, dataset.id);
          const { state } = await scope.decide(
            streamId("experiment", id),
            experimentDecider,
            {
              type: "CreateExperiment",
              id,
              accountId: ctx.principal.accountId,
              spaceId: row.space_id,
              name: req.name,
              dataset: { id: row.id, versionId: version.id },
              now,
            },
            spaceMetadata(ctx, row.space_id),
          );
          if (state.status !== "live") throw new Error("experiment not created");
          const at = now.toISOString();
          return {
            id,
            spaceId: row.space_id,
            name: req.name,
            datasetId: row.id,
            datasetVersionId: version.id,
            createdAt: at,
            updatedAt: at,
            integrationId: "",
          };
        },
        { conflicts: { experiments_name_per_dataset: nameTaken(req.name) } },
      );
    },

    /**
     * A bulk upload of runs into the experiment of that name on the dataset (as REST's run
     * insert: EXPERIMENT_UPDATE, every run naming one of the version's examples). Staged as they
     * arrive; the end commits them in one ExperimentRunsImported under the experiment's lock.
     */
    async importRuns(
      requests: AsyncIterable<ImportRunsMessage>,
      ctx: CallContext,
    ): Promise<ImportRunsResponse> {
      const messages = uploadOf(requests);
      const start = await startOf(messages);
      const dataset = await loadDataset(deps, ctx, start.datasetId);
      const named = await tracedQuery<{ id: string }>(
        deps.pool,
        "experiment by name on dataset",
        "select id from experiments where dataset_id = $1 and name = $2",
        [dataset.id, start.experimentName],
      );
      if (!named.rows[0]) throw notFound(`experiment ${JSON.stringify(start.experimentName)}`);
      const checked = await loadExperiment(deps, ctx, named.rows[0].id, "EXPERIMENT_UPDATE");
      requireRunColumns(columnNames(start.columns));

      const now = deps.clock.now();
      const upload = {
        pool: deps.pool,
        kind: "runs" as const,
        accountId: ctx.principal.accountId,
        now,
        max: LIMITS.RUNS_PER_IMPORT_MAX,
      };
      const rowTexts = function* (
        rows: { runs: { exampleId: string; fieldsJson: string; output: string }[] },
        first: number,
        nextId: () => string,
      ) {
        for (const [i, run] of rows.runs.entries()) {
          const n = first + i;
          if (run.exampleId === "")
            throw unprocessable(`row ${n}: example_id is required on a dataset's experiment`);
          if (!isUuid(run.exampleId))
            throw unprocessable(`row ${n}: example_id is not an example id`);
          const fields = run.fieldsJson || "{}";
          if (fields !== "{}") requireRowFields(fields, n, Buffer.byteLength(run.output));
          yield `{"n":${n},"id":"${nextId()}","example_id":"${run.exampleId}","output":${JSON.stringify(run.output)},"fields":${fields}}`;
        }
      };
      return stageUpload(messages, upload, rowTexts, async (importId, count) => {
        const at = now.toISOString();
        const experiment = await deps.commands.transact(async (scope) => {
          const lock = await lockExperiment(scope, checked.id);
          if (!lock) throw notFound("experiment");
          const row = lock.row;
          await claimImport(scope.client, importId);
          if (row.dataset_id && row.dataset_version_id) {
            const version = await findVersion(scope.client, row.dataset_id, row.dataset_version_id);
            if (!version) throw notFound("dataset version");
            const missing = await firstRunWithoutExample(
              scope.client,
              importId,
              row.dataset_id,
              version.lineage,
            );
            if (missing !== null)
              throw unprocessable(
                `row ${missing}: example_id is not an example of the experiment's dataset version`,
              );
          }
          const imported: ExperimentRunsImported = {
            type: "ExperimentRunsImported",
            data: {
              experiment_id: row.id,
              space_id: row.space_id,
              import_id: importId,
              count,
              columns: start.columns.map((c) => ({ name: c.name, kinds: c.kinds })),
              at,
            },
          };
          await scope.appendLocked(
            lock,
            streamId("experiment_runs", row.id),
            [imported],
            spaceMetadata(ctx, row.space_id),
          );
          return toExperiment({ ...row, updated_at: now });
        });
        return { experiment, runCount: BigInt(count) };
      });
    },
  };
}
