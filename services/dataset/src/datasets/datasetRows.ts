import { notFound } from "@argus/platform";
import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { isUuid, type SpaceRow } from "@argus/spaces";
import type { Dataset, DatasetVersion } from "@argus/proto/dataset/v1/dataset";
import { ACCESS } from "../shared/access.ts";
import { resourceRows } from "../shared/rowOf.ts";

export interface DatasetRow extends SpaceRow {
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface VersionRow {
  id: string;
  dataset_id: string;
  name: string;
  parent_id: string | null;
  lineage: string[];
  created_at: Date;
  updated_at: Date;
}

export const DATASET_COLUMNS = "id, account_id, space_id, name, created_at, updated_at";
export const VERSION_COLUMNS = "id, dataset_id, name, parent_id, lineage, created_at, updated_at";

export const toDataset = (r: DatasetRow, versions: readonly VersionRow[] = []): Dataset => ({
  id: r.id,
  spaceId: r.space_id,
  name: r.name,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  versions: versions.map(toVersion),
});

const toVersion = (v: VersionRow): DatasetVersion => ({
  id: v.id,
  datasetId: v.dataset_id,
  name: v.name,
  createdAt: v.created_at.toISOString(),
  updatedAt: v.updated_at.toISOString(),
});

const datasetRows = resourceRows<DatasetRow>("datasets", DATASET_COLUMNS, ACCESS.dataset);

export const findDataset = datasetRows.find;

/** The dataset's row, locked: every writer of its examples takes that lock first. */
export const lockDataset = datasetRows.lock;

/** The dataset as the caller may act on it with `permission` (404 / 403 otherwise). */
export const loadDataset = datasetRows.load;

/** The dataset's row lock as a command's `lockFirst`, with `then` under it. */
export const lockDatasetFirst = datasetRows.first;

/** `loadDataset` in a command: the lock `lockDatasetFirst` took, if the caller may act on it. */
export const lockedDatasetAs = datasetRows.firstAs;

/** The dataset when it is in the account the task runner names (row-locked on request); else 404. */
export const datasetInAccount = datasetRows.inAccount;

/** The named version of the dataset, or its latest (newest id: ids are uuid v7) when none is. */
export async function findVersion(
  db: Pool | PoolClient,
  datasetId: string,
  versionId: string,
): Promise<VersionRow | undefined> {
  if (versionId !== "" && !isUuid(versionId)) return undefined;
  const res = await tracedQuery<VersionRow>(
    db,
    "get dataset version",
    `select ${VERSION_COLUMNS} from dataset_versions ${versionWhere("$1", "$2")}`,
    [datasetId, versionId || null],
  );
  return res.rows[0];
}

/** `findVersion`'s choice as SQL over placeholders of the dataset and the version (or null). */
export const versionWhere = (dataset: string, version: string) =>
  `where dataset_id = ${dataset} and (${version}::uuid is null or id = ${version})
   order by id desc limit 1`;

/**
 * The dataset under its row lock, so that it is not deleted under what is made on it, and its
 * latest version (the one a new experiment runs on); either one gone is not found.
 */
export async function lockLatestVersion(client: PoolClient, datasetId: string) {
  const dataset = await findDataset(client, datasetId, true);
  if (!dataset) throw notFound("dataset");
  const version = await findVersion(client, dataset.id, "");
  if (!version) throw notFound("dataset version");
  return { dataset, version };
}

/** Newest first. */
export async function versionsOf(db: Pool | PoolClient, datasetId: string): Promise<VersionRow[]> {
  const res = await tracedQuery<VersionRow>(
    db,
    "list dataset versions",
    `select ${VERSION_COLUMNS} from dataset_versions where dataset_id = $1 order by id desc`,
    [datasetId],
  );
  return res.rows;
}
