// Where the floors append their events: a copy of the dataset service's event table.
import type pg from "pg";

/**
 * The floors' event table: the dataset service's, copied with its indexes, defaults and lz4
 * compression, beside it. In the service's own table the floors' events were the stack's to
 * publish: its relay read each one back (a PATCH floor's ~70 KB: ~3 ms of Postgres charged to
 * the floor; a create floor's 8 MiB), on the cores the floor was being measured on.
 */
export const FLOOR_SCHEMA = "bench_floor";
export const FLOOR_EVENTS = `${FLOOR_SCHEMA}.events`;

/**
 * Makes the floors' event table (once per database, before a floor appends), and the store's
 * `refuse` beside it, which the store's own append (`appendToStream`) names in its schema.
 */
export async function createFloorEvents(pool: pg.Pool): Promise<void> {
  await pool.query(
    `create schema if not exists ${FLOOR_SCHEMA};
     create table if not exists ${FLOOR_EVENTS} (like dataset.events including all);
     create or replace function ${FLOOR_SCHEMA}.refuse(state text, message text) returns int
       language sql as 'select dataset.refuse(state, message)'`,
  );
}
