import type { PoolClient } from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { ImportedColumn } from "@argus/contracts";
import {
  checkout,
  columnBatches,
  type BatchLimits,
  type CallContext,
  notFound,
  publicIdSql,
} from "@argus/platform";
import { isUuid } from "@argus/spaces";
import {
  ColumnKind,
  type ExportExamplesRequest,
  type ExportMessage,
  type ExportRunsRequest,
} from "@argus/proto/dataset/v1/bulk";
import { findVersion, loadDataset } from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { loadExperiment } from "../experiments/experimentRows.ts";
import { exampleColumnsOf, runColumnsOf } from "./columns.ts";

/** Rows per batch of a download, and bytes: small enough that no side holds much of it. */
const EXPORT_BATCH: BatchLimits = { rows: 1024, bytes: 1 << 20 };

const { COLUMN_KIND_STRING, COLUMN_KIND_INTEGER } = ColumnKind;

const epochMsSql = (column: string) => `floor(extract(epoch from ${column}) * 1000)::bigint::text`;

/** A JSON field as text: a string as itself, anything else as its JSON text. */
const fieldSql = (client: PoolClient, fields: string, name: string) =>
  `${fields} ->> ${client.escapeLiteral(name)}`;

/**
 * One statement's rows, batch by batch, straight from Postgres: a single `COPY … TO STDOUT`,
 * so one snapshot (a reader never sees half of a write) and the socket read only as fast as
 * the consumer takes batches. Leaving early ends the connection (Postgres stops the COPY when
 * it cannot write) rather than reading the rest.
 */
async function* copyBatches(
  deps: DatasetDeps,
  query: (client: PoolClient) => string,
  columns: number,
): AsyncGenerator<ExportMessage> {
  const client = await checkout(deps.pool);
  let finished = false;
  try {
    const stream = client.query(copyTo(`copy (${query(client)}) to stdout (format binary)`));
    for await (const batch of columnBatches(stream, columns, EXPORT_BATCH))
      yield { part: { $case: "batch", value: batch } };
    finished = true;
  } finally {
    client.release(finished ? undefined : new Error("download stopped"));
  }
}

/** The bulk downloads: a version's examples, an experiment's runs. */
export function bulkExports(deps: DatasetDeps) {
  return {
    async *exportExamples(req: ExportExamplesRequest, ctx: CallContext) {
      const dataset = await loadDataset(deps, ctx, req.datasetId, "DATASET_EXAMPLE_READ");
      const version = await findVersion(deps.pool, dataset.id, req.versionId);
      if (!version) throw notFound("dataset version");
      if (![dataset.id, ...version.lineage].every(isUuid)) throw new Error("not a uuid");
      const fields = await exampleColumnsOf(deps.pool, version.lineage);
      const columns: ImportedColumn[] = [
        { name: "id", kinds: COLUMN_KIND_STRING },
        { name: "created_at", kinds: COLUMN_KIND_INTEGER },
        { name: "updated_at", kinds: COLUMN_KIND_INTEGER },
        ...fields,
      ];
      yield {
        part: {
          $case: "header",
          value: { spaceId: dataset.space_id, versionId: version.id, columns },
        },
      } satisfies ExportMessage;
      const lineage = `'{${version.lineage.join(",")}}'::uuid[]`;
      // The rows the version sees, in id order, as examplePage walks them (exampleRows.ts): a
      // row counts when it is live and no nearer version of the lineage has one of its own.
      yield* copyBatches(
        deps,
        (client) => `
          select ${publicIdSql("DatasetExample", "x.id")}, ${epochMsSql("x.created_at")},
                 ${epochMsSql("x.updated_at")}
                 ${fields.map((f) => `, ${fieldSql(client, "x.fields", f.name)}`).join("")}
            from examples x
           where x.dataset_id = '${dataset.id}' and x.version_id = any(${lineage})
             and not x.deleted
             and (x.version_id = (${lineage})[1]
                  or (select true from examples y
                       where y.version_id = any((${lineage})[1:array_position(${lineage}, x.version_id) - 1])
                         and y.id = x.id
                       limit 1) is null)
           order by x.id`,
        columns.length,
      );
    },

    async *exportRuns(req: ExportRunsRequest, ctx: CallContext) {
      const experiment = await loadExperiment(deps, ctx, req.experimentId, "EXPERIMENT_RUN_READ");
      if (!isUuid(experiment.id)) throw new Error("not a uuid");
      const fields = await runColumnsOf(deps.pool, experiment.id);
      const columns: ImportedColumn[] = [
        { name: "id", kinds: COLUMN_KIND_STRING },
        { name: "example_id", kinds: COLUMN_KIND_STRING },
        { name: "output", kinds: COLUMN_KIND_STRING },
        ...fields,
      ];
      yield {
        part: {
          $case: "header",
          value: {
            spaceId: experiment.space_id,
            versionId: experiment.dataset_version_id ?? "",
            columns,
          },
        },
      } satisfies ExportMessage;
      yield* copyBatches(
        deps,
        (client) => `
          select ${publicIdSql("ExperimentRun", "r.id")},
                 case when r.example_id is null then null
                      else ${publicIdSql("DatasetExample", "r.example_id")} end,
                 r.output
                 ${fields.map((f) => `, ${fieldSql(client, "r.fields", f.name)}`).join("")}
            from experiment_runs r
           where r.experiment_id = '${experiment.id}'
           order by r.id`,
        columns.length,
      );
    },
  };
}
