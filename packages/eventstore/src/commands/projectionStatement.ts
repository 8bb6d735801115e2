import { quoteSchema } from "../schema/schemaName.ts";
import type { Statement } from "../schema/tracedQuery.ts";

/**
 * A projection as one SQL statement over the event it projects: `with` items (SQL over its own
 * placeholders, `$1` for `values[0]` on), which read the event's data as the one row of
 * `appended` (`(select data -> 'member' from appended)`), and a `check`, a scalar subquery over
 * them that refuses what the event may not do (`refuse`). The store either appends the event
 * in the same statement, `appended` being the append's own rows (`appendToStream`), or reads
 * it back by id in a statement of its own (`readBack`). Either way, nothing of the event is
 * sent to Postgres a second time, and what it refuses is refused in SQL: a COMMIT sent right
 * behind finds the transaction aborted (`CommandScope.appendLockedLast`).
 */
export interface ProjectionStatement {
  readonly name: string;
  readonly with: string;
  readonly check?: string;
  readonly values: readonly unknown[];
}

/**
 * `projection` in a statement of its own, the event read back from its row in `schema`'s
 * `events` by `eventId`, a placeholder after its values.
 */
export function readBack(
  projection: ProjectionStatement,
  schema: string,
  eventId: string,
): Statement {
  const n = projection.values.length + 1;
  return {
    name: projection.name,
    text: `with appended as (
         select data from ${quoteSchema(schema)}.events where event_id = $${n}::uuid),
       ${projection.with}
       select ${projection.check ?? "null"} as checked`,
    values: [...projection.values, eventId],
  };
}
