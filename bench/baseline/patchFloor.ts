// The least an event-sourced update of a version's examples asks of Postgres, shared by the two
// floors under `dataset-patch-1000`: the pg-only one (datasetPatch.ts) and the two-hop one
// (twoHop.ts, the shape's). One statement appends the update's event and updates the rows
// from the appended row, as the dataset's projection does for a version's own rows.
import type pg from "pg";
import { FLOOR_EVENTS } from "./floorEvents.ts";
import { prepared } from "./prepared.ts";

/**
 * An update's event: the dataset, when, and `examplesText`, its examples' `{id, fields}` (uuids)
 * as one JSON array's text, put in as it is.
 */
export const patchEventText = (datasetId: string, examplesText: string): string =>
  `{"dataset_id":${JSON.stringify(datasetId)},"at":"${new Date().toISOString()}","examples":${examplesText}}`;

/** Per stream, the last version appended by this process (each floor appends to its own). */
const appended = new Map<string, number>();

// The rows from the appended row's data, not from a second copy of the examples; the version is
// the dataset's latest (ids are uuid v7).
const appendAndUpdateStatement = prepared(
  "append_and_update",
  `with event as (
     insert into ${FLOOR_EVENTS} (stream_id, stream_version, event_id, event_type, data, metadata)
     values ($1, $2, gen_random_uuid(), 'BenchFloorUpdated', $3::jsonb, '{}')
     returning data
   ), updated as (
     update dataset.examples e set fields = e.fields || x.fields, updated_at = now()
       from jsonb_to_recordset((select data -> 'examples' from event))
            as x(id uuid, fields jsonb)
      where e.version_id = (select id from dataset.dataset_versions
                             where dataset_id = $4 order by id desc limit 1)
        and e.id = x.id
     returning e.version_id
   )
   select (select version_id from updated limit 1) as version_id,
          (select count(*) from updated)::int as updated`,
);

/**
 * Appends `eventText` to `stream` (its own, in the floors' event table) and
 * updates the rows of the dataset's latest version that it names, in one statement (one round
 * trip, atomic on its own); the version and how many rows changed.
 */
export async function appendAndUpdate(
  pool: pg.Pool,
  stream: string,
  datasetId: string,
  eventText: string,
): Promise<{ versionId: string; updated: number }> {
  const version = (appended.get(stream) ?? 0) + 1;
  appended.set(stream, version);
  const res = await pool.query<{ version_id: string | null; updated: number }>(
    appendAndUpdateStatement([stream, version, eventText, datasetId]),
  );
  const row = res.rows[0]!;
  return { versionId: row.version_id ?? "", updated: row.updated };
}
