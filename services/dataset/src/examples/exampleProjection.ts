import type { PoolClient } from "pg";
import { projector, tracedQuery, type Projections } from "@argus/eventstore";
import type { DatasetServiceEvent } from "@argus/contracts";

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

/**
 * Before a version changes `ids` in place, each of its children that reads through to it gets
 * its own copy of those examples as they are (or, for ids the version does not have yet, a
 * hidden row): a child never sees its parent change after it was made.
 */
async function detachChildren(
  client: PoolClient,
  d: { dataset_id: string; version_id: string },
  ids: readonly string[],
): Promise<void> {
  // A version without children, the usual case, costs this one index probe: in a single
  // statement the planner looked the examples up before it found no child to copy them to.
  const children = await tracedQuery<{ id: string }>(
    client,
    "dataset version children",
    "select id from dataset_versions where parent_id = $1",
    [d.version_id],
  );
  if (children.rows.length === 0) return;
  await tracedQuery(
    client,
    "dataset examples detach children",
    `insert into examples (version_id, id, dataset_id, fields, created_at, updated_at, deleted)
     select c.id, i.id, $1, coalesce(eff.fields, '{}'), coalesce(eff.created_at, now()),
            coalesce(eff.updated_at, now()), coalesce(eff.deleted, true)
       from unnest($4::uuid[]) as c(id)
       cross join unnest($3::uuid[]) as i(id)
       left join (${effectiveRows("$1", "$2::uuid", "$3::uuid[]")}) eff on eff.id = i.id
     on conflict (version_id, id) do nothing`,
    [d.dataset_id, d.version_id, ids, children.rows.map((c) => c.id)],
  );
}

async function touch(
  client: PoolClient,
  d: { dataset_id: string; version_id: string; at: string },
) {
  await tracedQuery(
    client,
    "dataset touched",
    `with v as (update dataset_versions set updated_at = $3 where id = $2)
     update datasets set updated_at = $3 where id = $1`,
    [d.dataset_id, d.version_id, d.at],
  );
}

/** Upserts by record and name: a field an annotation leaves out keeps its value. */
const upsertAnnotations = (
  client: PoolClient,
  kind: "example" | "run",
  parentId: string,
  d: { annotator_id: string; annotator_email?: string; annotations: unknown[]; at: string },
) =>
  tracedQuery(
    client,
    `annotate ${kind}s`,
    `insert into annotations
       (record_kind, record_id, parent_id, name, score, label, text, annotator_id, annotator_email,
        updated_at)
     select $1, x.record_id, $2, x.name, x.score, x.label, x.text, $3, $6, $4
       from jsonb_to_recordset($5::jsonb)
         as x(record_id uuid, name text, score double precision, label text, text text)
     on conflict (record_kind, record_id, name) do update
       set score = coalesce(excluded.score, annotations.score),
           label = coalesce(excluded.label, annotations.label),
           text = coalesce(excluded.text, annotations.text),
           annotator_id = excluded.annotator_id,
           annotator_email = excluded.annotator_email,
           updated_at = excluded.updated_at`,
    [
      kind,
      parentId,
      d.annotator_id || null,
      d.at,
      JSON.stringify(d.annotations),
      d.annotator_email || null,
    ],
  );

const dropAnnotations = (client: PoolClient, parentId: string) =>
  tracedQuery(client, "annotations dropped", "delete from annotations where parent_id = $1", [
    parentId,
  ]);

const projections: Projections<DatasetServiceEvent> = {
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
  async DatasetExamplesInserted(client, d) {
    await detachChildren(
      client,
      d,
      d.examples.map((e) => e.id),
    );
    await tracedQuery(
      client,
      "dataset DatasetExamplesInserted",
      `insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
       select $1, x.id, $2, x.fields, $3, $3
         from jsonb_to_recordset($4::jsonb) as x(id uuid, fields jsonb)`,
      [d.version_id, d.dataset_id, d.at, JSON.stringify(d.examples)],
    );
    await touch(client, d);
  },
  async DatasetExamplesUpdated(client, d) {
    const ids = d.examples.map((e) => e.id);
    await detachChildren(client, d, ids);
    // The version's own live rows change in place (an UPDATE, the common case); an example it
    // reads through from a parent gets a row of its own, merged from the parent's. Both parts
    // see the rows as they were before the statement, so no example is written twice; a
    // version without a parent skips the second part (a one-time filter) and its lookups.
    await tracedQuery(
      client,
      "dataset DatasetExamplesUpdated",
      `with x as materialized (
         select * from jsonb_to_recordset($4::jsonb) as x(id uuid, fields jsonb)
       ), own as (
         update examples e set fields = e.fields || x.fields, updated_at = $3
           from x
          where e.version_id = $2 and e.id = x.id and not e.deleted
       )
       insert into examples (version_id, id, dataset_id, fields, created_at, updated_at)
       select $2, x.id, $1, eff.fields || x.fields, eff.created_at, $3
         from x
         join (${effectiveRows("$1", "$2::uuid", "array(select id from x)")}) eff
           on eff.id = x.id and not eff.deleted
        where (select parent_id from dataset_versions where id = $2) is not null
          and not exists (select 1 from examples o where o.version_id = $2 and o.id = x.id)`,
      [d.dataset_id, d.version_id, d.at, JSON.stringify(d.examples)],
    );
    await touch(client, d);
  },
  async DatasetExamplesDeleted(client, d) {
    await detachChildren(client, d, d.example_ids);
    // A first version has no parent to read through to: its rows simply go.
    await tracedQuery(
      client,
      "dataset DatasetExamplesDeleted",
      `with v as (select parent_id from dataset_versions where id = $2),
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
    await touch(client, { ...d, at: d.at });
  },
  ExperimentCreated: (client, d) =>
    tracedQuery(
      client,
      "dataset ExperimentCreated",
      `insert into experiments
         (id, account_id, space_id, dataset_id, dataset_version_id, name, integration_id,
          created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $8, $7, $7)`,
      [
        d.id,
        d.account_id,
        d.space_id,
        d.dataset_id,
        d.dataset_version_id,
        d.name,
        d.created_at,
        d.integration_id ?? null,
      ],
    ),
  // Its runs go by their foreign key, their annotations by the experiment's id.
  async ExperimentDeleted(client, d) {
    await tracedQuery(
      client,
      "dataset ExperimentDeleted",
      "delete from experiments where id = $1",
      [d.id],
    );
    await dropAnnotations(client, d.id);
  },
  DatasetExamplesAnnotated: (client, d) => upsertAnnotations(client, "example", d.dataset_id, d),
  ExperimentRunsAnnotated: (client, d) => upsertAnnotations(client, "run", d.experiment_id, d),
  /** Each evaluation sets its three eval.<name>.* fields of the run (null when left out). */
  ExperimentRunsEvaluated: (client, d) =>
    tracedQuery(
      client,
      "dataset ExperimentRunsEvaluated",
      `update experiment_runs r set fields = r.fields || x.patch
         from (select e.run_id, jsonb_object_agg(kv.k, kv.v) as patch
                 from jsonb_to_recordset($2::jsonb)
                   as e(run_id uuid, name text, label text, score double precision, explanation text)
                 cross join lateral (values
                   ('eval.' || e.name || '.label', to_jsonb(e.label)),
                   ('eval.' || e.name || '.score', to_jsonb(e.score)),
                   ('eval.' || e.name || '.explanation', to_jsonb(e.explanation))) as kv(k, v)
                group by e.run_id) x
        where r.experiment_id = $1 and r.id = x.run_id`,
      [d.experiment_id, JSON.stringify(d.evaluations)],
    ),
  async ExperimentRunsInserted(client, d) {
    await tracedQuery(
      client,
      "dataset ExperimentRunsInserted",
      `insert into experiment_runs (experiment_id, id, example_id, output, fields, created_at)
       select $1, x.id, x.example_id, x.output, x.fields, $2
         from jsonb_to_recordset($3::jsonb) as x(id uuid, example_id uuid, output text, fields jsonb)`,
      [d.experiment_id, d.at, JSON.stringify(d.runs)],
    );
    await tracedQuery(
      client,
      "experiment touched",
      "update experiments set updated_at = $2 where id = $1",
      [d.experiment_id, d.at],
    );
  },
};

/** The dataset service's inline projections, in the transaction of their events. */
export const project = projector<DatasetServiceEvent>("dataset", projections);
