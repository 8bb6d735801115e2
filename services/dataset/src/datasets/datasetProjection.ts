import { tracedQuery, type Projections } from "@argus/eventstore";
import type { DatasetEvent } from "@argus/contracts";
import { dropAnnotations } from "../shared/annotationRows.ts";

/** Datasets and their versions; a deleted dataset takes its examples and their annotations. */
export const datasetProjections: Projections<DatasetEvent> = {
  DatasetCreated: (client, d) =>
    tracedQuery(
      client,
      "dataset DatasetCreated",
      `insert into datasets (id, account_id, space_id, name, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $5)`,
      [d.id, d.account_id, d.space_id, d.name, d.created_at],
    ),
  DatasetRenamed: (client, d) =>
    tracedQuery(
      client,
      "dataset DatasetRenamed",
      "update datasets set name = $2, updated_at = $3 where id = $1",
      [d.id, d.name, d.updated_at],
    ),
  // Versions go by their foreign key; examples have none (they are many), so by dataset.
  // The dataset's row first: its lock is the one every example write takes first.
  async DatasetDeleted(client, d) {
    await tracedQuery(client, "dataset DatasetDeleted", "delete from datasets where id = $1", [
      d.id,
    ]);
    await tracedQuery(
      client,
      "dataset examples deleted",
      "delete from examples where dataset_id = $1",
      [d.id],
    );
    await dropAnnotations(client, d.id);
  },
  DatasetVersionCreated: (client, d) =>
    tracedQuery(
      client,
      "dataset DatasetVersionCreated",
      `insert into dataset_versions (id, dataset_id, name, parent_id, lineage, created_at, updated_at)
       select $1, $2, $3, $4,
              array[$1::uuid] || coalesce((select lineage from dataset_versions where id = $4), '{}'),
              $5, $5`,
      [d.id, d.dataset_id, d.name, d.parent_version_id, d.created_at],
    ),
};
