import { tracedQuery, type Projections } from "@argus/eventstore";
import type { ExperimentEvent, ExperimentRunsEvent } from "@argus/contracts";
import { fieldKinds, recordRunColumnKinds, recordRunKinds } from "../bulk/columns.ts";
import { projectImportedRuns } from "../bulk/importProjection.ts";
import { dropAnnotations, upsertAnnotations } from "../shared/annotationRows.ts";

/**
 * The kinds (json_kind's bits) of an evaluation's values, from their SQL types rather than
 * through `to_jsonb` and json_kind for each of a page's values: a text is a string (1); a
 * double is an integer (4) when whole and of at most 18 digits, as json_kind reads its JSON
 * text, else a number (8); a value left out is JSON null (0).
 */
const TEXT_KIND = (v: string) => `case when ${v} is null then 0 else 1 end`;
const SCORE_KIND = (v: string) =>
  `case when ${v} is null then 0 when ${v} = trunc(${v}) and abs(${v}) < 1e18 then 4 else 8 end`;

/** Experiments and their runs, with the runs' annotations and a task's evaluations of them. */
export const experimentProjections: Projections<ExperimentEvent | ExperimentRunsEvent> = {
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
  ExperimentRunsAnnotated: (client, d) => upsertAnnotations(client, "run", d.experiment_id, d),
  ExperimentRunsImported: projectImportedRuns,
  /**
   * Each evaluation sets its three eval.<name>.* fields of the run (null when left out), read
   * from the event as appended (`ProjectionStatement`); one object per evaluation, merged per
   * run. The column catalog learns the kinds from the evaluations, per evaluator name, not
   * from each patch. Runs gone meanwhile are skipped.
   */
  ExperimentRunsEvaluated: {
    statement: (d) => ({
      name: "dataset ExperimentRunsEvaluated",
      with: `e as materialized (
         select * from jsonb_to_recordset((select data -> 'evaluations' from appended))
           as e(run_id uuid, name text, label text, score double precision, explanation text)
       ), x as (
         select e.run_id,
                jsonb_merge_agg(jsonb_build_object(
                  'eval.' || e.name || '.label', e.label,
                  'eval.' || e.name || '.score', e.score,
                  'eval.' || e.name || '.explanation', e.explanation)) as patch
           from e group by e.run_id
       ), evaluated as (
         update experiment_runs r set fields = r.fields || x.patch
           from x
          where r.experiment_id = $1 and r.id = x.run_id
       ), kinds as (
         select e.name, bit_or(${TEXT_KIND("e.label")}) as label,
                bit_or(${SCORE_KIND("e.score")}) as score,
                bit_or(${TEXT_KIND("e.explanation")}) as explanation
           from e group by e.name
       ), recorded as (
         ${recordRunColumnKinds(
           "$1",
           `(select k.key, k.kind from kinds cross join lateral (values
             ('eval.' || kinds.name || '.label', kinds.label),
             ('eval.' || kinds.name || '.score', kinds.score),
             ('eval.' || kinds.name || '.explanation', kinds.explanation)) as k(key, kind))`,
         )}
       )`,
      values: [d.experiment_id],
    }),
  },
  async ExperimentRunsInserted(client, d) {
    await tracedQuery(
      client,
      "dataset ExperimentRunsInserted",
      `with x as materialized (
         select * from jsonb_to_recordset($3::jsonb)
           as x(id uuid, example_id uuid, output text, fields jsonb)
       ), inserted as (
         insert into experiment_runs (experiment_id, id, example_id, output, fields, created_at)
         select $1, x.id, x.example_id, x.output, x.fields, $2 from x
       )
       ${recordRunKinds("$1", "$4")}`,
      [d.experiment_id, d.at, JSON.stringify(d.runs), fieldKinds(d.runs)],
    );
    await tracedQuery(
      client,
      "experiment touched",
      "update experiments set updated_at = $2 where id = $1",
      [d.experiment_id, d.at],
    );
  },
};
