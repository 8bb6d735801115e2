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

/** The kind of one field's value, as `json_kind` (migration 0007) reads it from the event's JSON. */
export function jsonKind(v: unknown): number {
  if (v === null) return 0;
  switch (typeof v) {
    case "string":
      return 1;
    case "boolean":
      return 2;
    // The event holds the value as JSON.stringify wrote it, which is String(v) for a number.
    case "number":
      return /^-?[0-9]{1,18}$/.test(String(v)) ? 4 : 8;
    default:
      return 16;
  }
}

/**
 * The `[{key, kind}]` (JSON text, a statement's parameter) of the fields `rows` hold, kinds
 * merged per field. Found here from the event the projection already holds: in SQL,
 * `jsonb_each` and `json_kind` over every value of a 1000-example write cost Postgres ~3 ms.
 */
export function fieldKinds(rows: readonly { fields?: Readonly<Record<string, unknown>> | null }[]) {
  const kinds = new Map<string, number>();
  for (const row of rows) {
    if (!row.fields) continue;
    for (const key in row.fields) kinds.set(key, (kinds.get(key) ?? 0) | jsonKind(row.fields[key]));
  }
  return JSON.stringify([...kinds].map(([key, kind]) => ({ key, kind })));
}

/** The relation of `(key, kind)` in a parameter `fieldKinds` made. */
const kindsOf = (param: string) =>
  `(select k.key, k.kind from jsonb_to_recordset(${param}::jsonb) as k(key text, kind integer))`;

/**
 * The statement (it ends a projection's, after its `with`, or is one of its `with` items) that
 * adds fields to the catalog, from a relation of `(key, kind)` (one per value or per field),
 * kinds merged into known ones, rewriting no row whose kinds stay the same. New fields are
 * numbered in name order.
 */
function recordColumnKinds(c: Catalog, owner: string, kinds: string): string {
  return `insert into ${c.table} (${c.owner}, name, kinds)
     select ${owner}, f.key, bit_or(f.kind)
       from ${kinds} f
      group by f.key
      order by f.key
     on conflict (${c.owner}, name) do update set kinds = ${c.table}.kinds | excluded.kinds
      where ${c.table}.kinds <> ${c.table}.kinds | excluded.kinds`;
}

/** Records the example fields of version `owner` given as `fieldKinds` in parameter `param`. */
export const recordExampleKinds = (owner: string, param: string) =>
  recordColumnKinds(EXAMPLES, owner, kindsOf(param));

/** Records the run fields of experiment `owner` given as `fieldKinds` in parameter `param`. */
export const recordRunKinds = (owner: string, param: string) =>
  recordColumnKinds(RUNS, owner, kindsOf(param));

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
