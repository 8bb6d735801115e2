import type { Pool, PoolClient } from "pg";
import { tracedQuery, type CommandScope, type RowLock } from "@argus/eventstore";
import { notFound } from "@argus/platform";
import type { Experiment, ExperimentRun } from "@argus/proto/dataset/v1/dataset";
import { ACCESS } from "../shared/access.ts";
import { annotationsOf } from "../shared/annotationRows.ts";
import { resourceRows } from "../shared/rowOf.ts";

export interface ExperimentRow {
  id: string;
  account_id: string;
  space_id: string;
  dataset_id: string | null;
  dataset_version_id: string | null;
  name: string;
  integration_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const EXPERIMENT_COLUMNS =
  "id, account_id, space_id, dataset_id, dataset_version_id, name, integration_id, created_at, updated_at";

export const toExperiment = (r: ExperimentRow): Experiment => ({
  id: r.id,
  spaceId: r.space_id,
  name: r.name,
  datasetId: r.dataset_id ?? "",
  datasetVersionId: r.dataset_version_id ?? "",
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  integrationId: r.integration_id ?? "",
});

const experimentRows = resourceRows<ExperimentRow>(
  "experiments",
  EXPERIMENT_COLUMNS,
  ACCESS.experiment,
);

export const findExperiment = experimentRows.find;

/** The experiment's row, locked: every writer of its runs takes that lock first. */
export const lockExperiment = experimentRows.lock;

/** The experiment as the caller may act on it with `permission` (404 / 403 otherwise). */
export const loadExperiment = experimentRows.load;

/**
 * The experiment when it is in the account the task runner names (else 404), under its row
 * lock, which every writer of its runs takes.
 */
export async function lockExperimentInAccount(
  scope: CommandScope,
  accountId: string,
  id: string,
): Promise<RowLock<ExperimentRow>> {
  const lock = await lockExperiment(scope, id);
  if (!lock || lock.row.account_id !== accountId) throw notFound("experiment");
  return lock;
}

export async function experimentIdsOf(
  db: Pool | PoolClient,
  column: "dataset_id" | "space_id",
  id: string,
): Promise<string[]> {
  const res = await tracedQuery<{ id: string }>(
    db,
    `experiments by ${column}`,
    `select id from experiments where ${column} = $1 order by id`,
    [id],
  );
  return res.rows.map((r) => r.id);
}

export interface RunRow {
  id: string;
  example_id: string | null;
  output: string;
  fields_json: string;
  annotations_json: string | null;
  created_at: Date;
}

export const toRun = (r: RunRow): ExperimentRun => ({
  id: r.id,
  exampleId: r.example_id ?? "",
  output: r.output,
  fieldsJson: r.fields_json,
  createdAt: r.created_at.toISOString(),
  annotationsJson: r.annotations_json ?? "",
});

/** One keyset page of an experiment's runs in id order, narrowed by `filter` ($4 on). */
export async function runPage(
  db: Pool | PoolClient,
  experimentId: string,
  after: string,
  fetch: number,
  filter: { sql: string; params: unknown[] } = { sql: "true", params: [] },
): Promise<RunRow[]> {
  const res = await tracedQuery<RunRow>(
    db,
    "experiment runs page",
    `select r.id, r.example_id, r.output, r.fields::text as fields_json, r.created_at,
            ${annotationsOf("run", "r.id")} as annotations_json
       from experiment_runs r
      where r.experiment_id = $1 and ($2::uuid is null or r.id > $2)
        and (${filter.sql})
      order by r.id
      limit $3`,
    [experimentId, after || null, fetch, ...filter.params],
  );
  return res.rows;
}
