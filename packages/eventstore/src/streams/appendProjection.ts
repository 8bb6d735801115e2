import type { QueryResultRow } from "pg";

/**
 * A projection run in the statement that appends its event: one round trip, and the event's
 * data read from the row being inserted rather than read back from the table. `with` holds
 * `with` items over `appended` (the inserted row; `data` is its data), its values bound with
 * the `bind` it was given (which answers each one's placeholder); `result` is select-list
 * items over them, and `check` gets the statement's row once it ran (it may refuse it,
 * rolling the transaction back). The event's projection of `Projections` stays what replay
 * and any other append run, so both must write the same rows.
 */
export interface AppendProjection {
  with: string;
  result: string;
  check(row: QueryResultRow): void;
}

/** An event's projection as part of its append, given the append's `bind`. */
export type InAppend = (bind: (value: unknown) => string) => AppendProjection;
