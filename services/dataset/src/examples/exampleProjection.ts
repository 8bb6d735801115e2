import { tracedQuery, type Projections } from "@argus/eventstore";
import type { DatasetExamplesEvent } from "@argus/contracts";
import { fieldKinds, recordExampleKinds } from "../bulk/columns.ts";
import { projectImportedExamples } from "../bulk/importProjection.ts";
import { upsertAnnotations } from "../shared/annotationRows.ts";
import { touchDataset } from "../shared/touchDataset.ts";
import { effectiveRows } from "./exampleRows.ts";

/**
 * The SQLSTATE of an update event that named examples its version does not hold (live): its
 * projection changed fewer rows than it carries examples, and refused it in its statement. A
 * command that appended the event without reading which examples the version holds learns it
 * so, and writes it again after reading them; in a history, where every update event names
 * only examples its version held, it never happens.
 */
const NOT_HELD = "AXE01";

export const examplesNotHeld = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === NOT_HELD;

/**
 * Before a version changes `ids` in place, each of its children that reads through to it gets
 * its own copy of those examples as they are (or, for ids the version does not have yet, a
 * hidden row): a child never sees its parent change after it was made. A `with` item of the
 * projection's own statement (SQL over its placeholders), so it reads the rows as they were
 * before the statement; a version without children, the usual case, skips it on a one-time
 * filter before any example is looked up.
 */
const detachedChildren = (dataset: string, version: string, ids: string) => `
  detached as (
    insert into examples (version_id, id, dataset_id, fields, created_at, updated_at, deleted)
    select c.id, i.id, ${dataset}, coalesce(eff.fields, '{}'), coalesce(eff.created_at, now()),
           coalesce(eff.updated_at, now()), coalesce(eff.deleted, true)
      from (select id from dataset_versions where parent_id = ${version}) c
      cross join unnest(${ids}) as i(id)
      left join (${effectiveRows(dataset, `${version}::uuid`, ids)}) eff on eff.id = i.id
     where exists (select 1 from dataset_versions where parent_id = ${version})
    on conflict (version_id, id) do nothing)`;

/**
 * The same stamp as `touchDataset`, as two `with` items of a projection's own statement (SQL over its
 * placeholders): a bulk write's projection makes one round trip, not two.
 */
const touched = (dataset: string, version: string, at: string) => `
  touched_version as (update dataset_versions set updated_at = ${at} where id = ${version}),
  touched_dataset as (update datasets set updated_at = ${at} where id = ${dataset})`;

/**
 * The `{id, fields}` records of the examples of the event projected (`ProjectionStatement`:
 * its one row in `appended`, as inserted).
 */
const examplesOfEvent = `jsonb_to_recordset((select data -> 'examples' from appended))
  as x(id uuid, fields jsonb)`;

/**
 * A version's examples: each write detaches the version's children first (they keep what they
 * saw), then changes the version's own rows and stamps the dataset and version (inserts and
 * updates in the statement that writes the rows).
 */
export const exampleProjections: Projections<DatasetExamplesEvent> = {
  DatasetExamplesInserted: {
    statement: (d) => ({
      name: "dataset DatasetExamplesInserted",
      with: `x as materialized (
         select * from ${examplesOfEvent}
       ), ${detachedChildren("$2", "$1", "array(select id from x)")}, inserted as (
         insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
         select $1, x.id, $2, x.fields, $3, $3 from x
       ), ${touched("$2", "$1", "$3")}, kinds as (
         ${recordExampleKinds("$1", "$4")}
       )`,
      values: [d.version_id, d.dataset_id, d.at, fieldKinds(d.examples)],
    }),
  },
  // The version's own live rows change in place (an UPDATE, the common case); an example it
  // reads through from a parent gets a row of its own, merged from the parent's. Both parts
  // see the rows as they were before the statement, so no example is written twice; a
  // version without a parent skips the second part (a one-time filter) and its lookups. Fewer
  // rows changed than the event carries is refused (NOT_HELD).
  DatasetExamplesUpdated: {
    statement: (d) => ({
      name: "dataset DatasetExamplesUpdated",
      with: `x as materialized (
         select * from ${examplesOfEvent}
       ), ${detachedChildren("$1", "$2", "array(select id from x)")}, own as (
         update examples e set fields = e.fields || x.fields, updated_at = $3
           from x
          where e.version_id = $2 and e.id = x.id and not e.deleted
         returning 1
       ), copied as (
         insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
         select $2, x.id, $1, eff.fields || x.fields, eff.created_at, $3
           from x
           join (${effectiveRows("$1", "$2::uuid", "array(select id from x)")}) eff
             on eff.id = x.id and not eff.deleted
          where (select parent_id from dataset_versions where id = $2) is not null
            and not exists (select 1 from examples o where o.version_id = $2 and o.id = x.id)
         returning 1
       ), ${touched("$1", "$2", "$3")}, kinds as (
         ${recordExampleKinds("$2", "$4")}
       ), changed as (
         select ((select count(*) from own) + (select count(*) from copied))::int as n
       )`,
      check: `(select case when n = $5::int then n
              else refuse('${NOT_HELD}', 'an update event names ' || ($5::int - n) ||
                          ' examples its version does not hold') end
         from changed)`,
      values: [d.dataset_id, d.version_id, d.at, fieldKinds(d.examples), d.examples.length],
    }),
  },
  async DatasetExamplesDeleted(client, d) {
    // A first version has no parent to read through to: its rows simply go.
    await tracedQuery(
      client,
      "dataset DatasetExamplesDeleted",
      `with v as (select parent_id from dataset_versions where id = $2),
            ${detachedChildren("$1", "$2", "$3::uuid[]")},
            gone as (
              delete from examples
               where version_id = $2 and id = any($3::uuid[])
                 and (select parent_id from v) is null)
       insert into examples (version_id, id, dataset_id, fields, created_at, updated_at, deleted)
       select $2, i.id, $1, '{}', $4, $4, true
         from unnest($3::uuid[]) as i(id)
        where (select parent_id from v) is not null
       on conflict (version_id, id) do update
         set fields = '{}', updated_at = excluded.updated_at, deleted = true`,
      [d.dataset_id, d.version_id, d.example_ids, d.at],
    );
    await touchDataset(client, d);
  },
  DatasetExamplesAnnotated: (client, d) => upsertAnnotations(client, "example", d.dataset_id, d),
  DatasetExamplesImported: projectImportedExamples,
};
