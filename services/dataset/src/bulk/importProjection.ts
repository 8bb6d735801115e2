import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { DatasetExamplesImported, ExperimentRunsImported } from "@argus/contracts";
import { touchDataset } from "../shared/touchDataset.ts";
import { recordExampleColumns, recordRunColumns } from "./columns.ts";

/**
 * The rows of an import event, from the chunks staged under it, set-based: one statement
 * however many rows. An import fills a version nobody read through yet (a bulk create's first
 * one), so no child needs a copy of anything first.
 */
export async function projectImportedExamples(
  client: PoolClient,
  d: DatasetExamplesImported["data"],
): Promise<void> {
  const res = await tracedQuery(
    client,
    "dataset DatasetExamplesImported",
    `insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
     select $1, x.id, $2, x.fields, $3, $3
       from import_chunks c
       cross join lateral jsonb_to_recordset(c.rows::jsonb) as x(id uuid, fields jsonb)
      where c.import_id = $4`,
    [d.version_id, d.dataset_id, d.at, d.import_id],
  );
  if (res.rowCount !== d.count)
    throw new Error(`import ${d.import_id} holds ${res.rowCount} examples, its event ${d.count}`);
  await recordExampleColumns(client, d.version_id, d.columns);
  await touchDataset(client, d);
}

export async function projectImportedRuns(
  client: PoolClient,
  d: ExperimentRunsImported["data"],
): Promise<void> {
  const res = await tracedQuery(
    client,
    "dataset ExperimentRunsImported",
    `insert into experiment_runs (experiment_id, id, example_id, output, fields, created_at)
     select $1, x.id, x.example_id, x.output, x.fields, $2
       from import_chunks c
       cross join lateral jsonb_to_recordset(c.rows::jsonb)
         as x(id uuid, example_id uuid, output text, fields jsonb)
      where c.import_id = $3`,
    [d.experiment_id, d.at, d.import_id],
  );
  if (res.rowCount !== d.count)
    throw new Error(`import ${d.import_id} holds ${res.rowCount} runs, its event ${d.count}`);
  await recordRunColumns(client, d.experiment_id, d.columns);
  await tracedQuery(
    client,
    "experiment touched",
    "update experiments set updated_at = $2 where id = $1",
    [d.experiment_id, d.at],
  );
}
