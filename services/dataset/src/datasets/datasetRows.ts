import type { Pool, PoolClient } from "pg";
import { tracedQuery, type CommandScope } from "@argus/eventstore";
import { notFound, type CallContext, type Permission } from "@argus/platform";
import { authorized, isUuid } from "@argus/spaces";
import type { Dataset, DatasetVersion } from "@argus/proto/dataset/v1/dataset";
import type { DatasetDeps } from "../deps.ts";
import { ACCESS } from "../shared/access.ts";
import { lockRowOf, rowOf } from "../shared/rowOf.ts";

export interface DatasetRow {
  id: string;
  account_id: string;
  space_id: string;
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
const VERSION_COLUMNS = "id, dataset_id, name, parent_id, lineage, created_at, updated_at";

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

export const findDataset = (db: Pool | PoolClient, id: string, lock = false) =>
  rowOf<DatasetRow>(db, "datasets", DATASET_COLUMNS, id, lock);

/** The dataset's row, locked: every writer of its examples takes that lock first. */
export const lockDataset = (scope: CommandScope, id: string) =>
  lockRowOf<DatasetRow>(scope, "datasets", DATASET_COLUMNS, id);

/** The dataset as the caller may act on it with `permission` (404 / 403 otherwise). */
export async function loadDataset(
  deps: Pick<DatasetDeps, "pool" | "spaces">,
  ctx: CallContext,
  id: string,
  permission?: Permission,
): Promise<DatasetRow> {
  return authorized(deps.spaces, ctx, await findDataset(deps.pool, id), ACCESS.dataset, permission);
}

/** The dataset when it is in the account the task runner names; else 404. */
export async function datasetInAccount(
  db: Pool | PoolClient,
  accountId: string,
  id: string,
  lock = false,
): Promise<DatasetRow> {
  const row = isUuid(id) ? await findDataset(db, id, lock) : undefined;
  if (!row || row.account_id !== accountId) throw notFound("dataset");
  return row;
}

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
    `select ${VERSION_COLUMNS} from dataset_versions
      where dataset_id = $1 and ($2::uuid is null or id = $2)
      order by id desc limit 1`,
    [datasetId, versionId || null],
  );
  return res.rows[0];
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
