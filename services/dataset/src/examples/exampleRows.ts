import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { Example } from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";
import { VERSION_COLUMNS, versionWhere, type VersionRow } from "../datasets/datasetRows.ts";
import { annotationsOf } from "../shared/annotationRows.ts";

/**
 * The example rows a version sees for `ids`: from the first version of its lineage holding a
 * row (hidden ones included, `deleted`), as SQL over placeholders of the dataset, the version
 * and the ids.
 */
export const effectiveRows = (dataset: string, version: string, ids: string) => `
  select distinct on (x.id) x.id, x.fields, x.created_at, x.updated_at, x.deleted
    from dataset_versions v
    cross join unnest(${ids}) as i(id)
    join examples x on x.dataset_id = ${dataset} and x.id = i.id and x.version_id = any(v.lineage)
   where v.id = ${version}
   order by x.id, array_position(v.lineage, x.version_id)`;

/**
 * `findVersion`, and which of `ids` (uuids) that version holds (live, not hidden): the examples
 * a write may touch, in the round trip that finds the version. SQL over SQL of the dataset, the
 * version (or null) and the ids (a `uuid[]`; undefined: none named, nothing to look up). The
 * ids go as one array and come back as one comma-separated text: for the 1000 of a bulk write,
 * the driver's quoting of each element and a result row per id were most of the statement's
 * time. A first version reads through to nothing: its own rows are its examples (half the cost
 * of merging a lineage). The ids are joined, never `= any(…)`: once a prepared statement's plan
 * is generic, an array parameter is no longer hashed, and each row of the version was compared
 * with every id.
 */
const versionWithPresentSql = (dataset: string, version: string, ids: string | undefined) =>
  `with ver as (select ${VERSION_COLUMNS} from dataset_versions ${versionWhere(dataset, version)})
   select ${VERSION_COLUMNS}, ${
     ids === undefined
       ? "null::text"
       : `case when ver.parent_id is null
       then (select string_agg(x.id::text, ',') from unnest(${ids}) as i(id)
               join examples x on x.version_id = ver.id and x.id = i.id and not x.deleted)
       else (select string_agg(e.id::text, ',')
               from (${effectiveRows(dataset, "ver.id", ids)}) e where not e.deleted)
     end`
   } as present
   from ver`;

export interface VersionWithPresent {
  version: VersionRow;
  present: Set<string>;
}

/** The version and the ids it holds from `versionWithPresentSql`'s rows; none when it found none. */
export function versionPresentOf(
  rows: readonly object[] | undefined,
): VersionWithPresent | undefined {
  const row = rows?.[0] as (VersionRow & { present: string | null }) | undefined;
  if (!row) return undefined;
  const { present, ...version } = row;
  return { version, present: new Set(present ? present.split(",") : []) };
}

/** `versionWithPresentSql` run with the dataset, version and ids as parameters. */
export async function versionWithPresent(
  db: Pool | PoolClient,
  datasetId: string,
  versionId: string,
  ids: readonly string[],
): Promise<VersionWithPresent | undefined> {
  if (versionId !== "" && !isUuid(versionId)) return undefined;
  // Anything but lowercase uuids goes as an array, for Postgres to refuse as it always did.
  const idsParam = ids.every(isUuid) ? `{${ids.join(",")}}` : ids;
  const res = await tracedQuery<VersionRow & { present: string | null }>(
    db,
    "dataset version and examples present",
    versionWithPresentSql("$1", "$2", "$3::uuid[]"),
    [datasetId, versionId || null, idsParam],
  );
  return versionPresentOf(res.rows);
}

/**
 * `versionWithPresentSql` without parameters, for a command's `lockFirst`: the dataset, the
 * version and the ids written in as literals once checked to be uuids; undefined when one is
 * not (there is no such version, or no such example).
 */
export function versionWithPresentLookup(
  datasetId: string,
  versionId: string,
  ids: readonly string[],
): string | undefined {
  if (!isUuid(datasetId) || (versionId !== "" && !isUuid(versionId)) || !ids.every(isUuid))
    return undefined;
  return versionWithPresentSql(
    `'${datasetId}'::uuid`,
    versionId === "" ? "null" : `'${versionId}'::uuid`,
    ids.length === 0 ? undefined : `'{${ids.join(",")}}'::uuid[]`,
  );
}

export interface ExampleRow {
  id: string;
  fields_json: string;
  annotations_json: string | null;
  created_at: Date;
  updated_at: Date;
}

export const toExample = (r: ExampleRow): Example => ({
  id: r.id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  fieldsJson: r.fields_json,
  annotationsJson: r.annotations_json ?? "",
});

/** The smallest uuid: the first page starts after it, so every page is one index range. */
const BEFORE_ALL = "00000000-0000-0000-0000-000000000000";

/**
 * One keyset page of a version's examples in id order, after `after`, at most `fetch` rows,
 * narrowed by `filter` (SQL over `x.fields`, with its parameters numbered from $5 on).
 *
 * One ordered scan of (dataset_id, id) over the rows of the version's lineage: a row counts
 * when it is live and no nearer version of the lineage has a row of that example (its own
 * change or its hiding). The nearer-row probe is a subquery, not an anti-join, on purpose: the
 * planner cannot estimate an anti-join over a lineage and would sort the whole dataset for the
 * first page; this shape makes page 1 and page 20 000 the same index walk (bench/README.md).
 */
export async function examplePage(
  db: Pool | PoolClient,
  version: VersionRow,
  after: string,
  fetch: number,
  filter: { sql: string; params: unknown[] } = { sql: "true", params: [] },
): Promise<ExampleRow[]> {
  const res = await tracedQuery<ExampleRow>(
    db,
    "dataset examples page",
    `select x.id, x.fields::text as fields_json, x.created_at, x.updated_at,
            ${annotationsOf("example", "x.id")} as annotations_json
       from examples x
      where x.dataset_id = $1 and x.version_id = any($2::uuid[]) and x.id > $3::uuid
        and not x.deleted
        and (x.version_id = ($2::uuid[])[1]
             or (select true from examples y
                  where y.version_id = any(($2::uuid[])[1:array_position($2::uuid[], x.version_id) - 1])
                    and y.id = x.id
                  limit 1) is null)
        and (${filter.sql})
      order by x.id
      limit $4`,
    [version.dataset_id, version.lineage, after || BEFORE_ALL, fetch, ...filter.params],
  );
  return res.rows;
}
