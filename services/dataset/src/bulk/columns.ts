import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { ImportedColumn } from "@argus/contracts";

/**
 * The column catalogs (`example_columns`, `run_columns`): the fields a version's examples or an
 * experiment's runs hold, with the kinds of their values, so a download knows its columns
 * before its first row instead of reading everything twice. Every projection that writes
 * fields records them here, in the same transaction; a catalog only grows (a field removed
 * leaves an all-null column, never a missing one).
 */

type Catalog =
  | { table: "example_columns"; owner: "version_id" }
  | { table: "run_columns"; owner: "experiment_id" };

const EXAMPLES: Catalog = { table: "example_columns", owner: "version_id" };
const RUNS: Catalog = { table: "run_columns", owner: "experiment_id" };

/** Adds `columns` (kinds merged into known ones), rewriting no row whose kinds stay the same. */
async function record(
  client: PoolClient,
  c: Catalog,
  ownerId: string,
  columns: readonly ImportedColumn[],
): Promise<void> {
  if (columns.length === 0) return;
  await tracedQuery(
    client,
    `record ${c.table}`,
    `insert into ${c.table} (${c.owner}, name, kinds)
     select $1, e.v ->> 'name', (e.v ->> 'kinds')::integer
       from jsonb_array_elements($2::jsonb) with ordinality as e(v, n)
      order by e.n
     on conflict (${c.owner}, name) do update set kinds = ${c.table}.kinds | excluded.kinds
      where ${c.table}.kinds <> ${c.table}.kinds | excluded.kinds`,
    [ownerId, JSON.stringify(columns)],
  );
}

/**
 * The statement that records the fields `fields` holds for each row of `rows` (a relation of
 * the projection's own statement: the JSON it writes or merges into rows of `owner`), kinds
 * merged into known ones, rewriting no row whose kinds stay the same. It ends the projection's
 * statement (after its `with`), so the written JSON is parsed once and no row is read back: a
 * merge keeps a row's other fields, whose kinds the catalog already holds.
 */
function recordKinds(c: Catalog, owner: string, rows: string, fields: string): string {
  return recordColumnKinds(
    c,
    owner,
    `(select f.key, json_kind(f.value) as kind
        from ${rows} cross join lateral jsonb_each(${fields}) f)`,
  );
}

/** The same, from a relation of `(key, kind)` the statement already knows (one per value). */
function recordColumnKinds(c: Catalog, owner: string, kinds: string): string {
  return `insert into ${c.table} (${c.owner}, name, kinds)
     select ${owner}, f.key, bit_or(f.kind)
       from ${kinds} f
      group by f.key
      order by f.key
     on conflict (${c.owner}, name) do update set kinds = ${c.table}.kinds | excluded.kinds
      where ${c.table}.kinds <> ${c.table}.kinds | excluded.kinds`;
}

/** Records the example fields a projection writes to version `owner` (a SQL parameter). */
export const recordExampleKinds = (owner: string, rows: string, fields: string) =>
  recordKinds(EXAMPLES, owner, rows, fields);

/** Records the run fields a projection writes to experiment `owner` (a SQL parameter). */
export const recordRunKinds = (owner: string, rows: string, fields: string) =>
  recordKinds(RUNS, owner, rows, fields);

/** Records run fields of experiment `owner` from a relation of their `(key, kind)`. */
export const recordRunColumnKinds = (owner: string, kinds: string) =>
  recordColumnKinds(RUNS, owner, kinds);

export const recordExampleColumns = (
  client: PoolClient,
  versionId: string,
  columns: readonly ImportedColumn[],
) => record(client, EXAMPLES, versionId, columns);

export const recordRunColumns = (
  client: PoolClient,
  experimentId: string,
  columns: readonly ImportedColumn[],
) => record(client, RUNS, experimentId, columns);

/** A version's columns: those of every version of its lineage (its examples read through). */
export async function exampleColumnsOf(
  db: Pool | PoolClient,
  lineage: readonly string[],
): Promise<ImportedColumn[]> {
  const res = await tracedQuery<ImportedColumn>(
    db,
    "example columns",
    `select name, bit_or(kinds)::integer as kinds from example_columns
      where version_id = any($1::uuid[])
      group by name order by min(seq)`,
    [lineage],
  );
  return res.rows;
}

export async function runColumnsOf(
  db: Pool | PoolClient,
  experimentId: string,
): Promise<ImportedColumn[]> {
  const res = await tracedQuery<ImportedColumn>(
    db,
    "run columns",
    "select name, kinds from run_columns where experiment_id = $1 order by seq",
    [experimentId],
  );
  return res.rows;
}
