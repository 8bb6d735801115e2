import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { Example } from "@argus/proto/dataset/v1/dataset";
import type { VersionRow } from "../datasets/datasetRows.ts";
import { annotationsOf } from "../shared/annotationRows.ts";

/**
 * The example rows a version sees for `ids`: from the first version of its lineage holding a
 * row (hidden ones included, `deleted`), as SQL over placeholders of the dataset, the version
 * and the ids.
 */
export const effectiveRows = (dataset: string, version: string, ids: string) => `
  select distinct on (x.id) x.id, x.fields, x.created_at, x.updated_at, x.deleted
    from dataset_versions v
    join examples x on x.dataset_id = ${dataset} and x.version_id = any(v.lineage)
   where v.id = ${version} and x.id = any(${ids})
   order by x.id, array_position(v.lineage, x.version_id)`;

/** An array literal of lowercase uuids only: nothing in it for the driver to quote. */
const UUID_TEXT = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const UUID_LIST = new RegExp(`^\\{${UUID_TEXT}(?:,${UUID_TEXT})*\\}$`);

/**
 * Which of `ids` (uuids) the version holds (live, not hidden): the examples a write may touch.
 * The ids go as one array literal and come back as one comma-separated text: for the 1000 of
 * a bulk write, the driver's quoting of each element and a result row per id were most of the
 * statement's time.
 */
export async function presentIds(
  db: Pool | PoolClient,
  version: VersionRow,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const literal = `{${ids.join(",")}}`;
  // Anything but uuids goes as an array, for Postgres to refuse as it always did.
  const idsParam = UUID_LIST.test(literal) ? literal : ids;
  // A first version reads through to nothing: its own rows are its examples (half the cost
  // of merging a lineage for the 1000 ids of a bulk write).
  const [name, text, values] =
    version.parent_id === null
      ? [
          "dataset examples present (first version)",
          `select string_agg(id::text, ',') as ids from examples
            where version_id = $1 and id = any($2::uuid[]) and not deleted`,
          [version.id, idsParam],
        ]
      : [
          "dataset examples present",
          `select string_agg(e.id::text, ',') as ids
             from (${effectiveRows("$1", "$2::uuid", "$3::uuid[]")}) e where not e.deleted`,
          [version.dataset_id, version.id, idsParam],
        ];
  const res = await tracedQuery<{ ids: string | null }>(db, name, text, values);
  const present = res.rows[0]?.ids;
  return new Set(present ? present.split(",") : []);
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
