import type { Pool, PoolClient } from "pg";
import { tracedQuery, type CommandScope, type RowLock } from "@argus/eventstore";
import { isUuid } from "@argus/spaces";

/**
 * The row of `table` with this id, row-locked when `lock` (the lock every writer of the
 * resource's records takes first); none for an id that is no uuid.
 */
export async function rowOf<T extends object>(
  db: Pool | PoolClient,
  table: string,
  columns: string,
  id: string,
  lock: boolean,
): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await tracedQuery<T>(
    db,
    `${lock ? "lock" : "get"} ${table}`,
    `select ${columns} from ${table} where id = $1${lock ? " for update" : ""}`,
    [id],
  );
  return res.rows[0];
}

/**
 * The row of `table` with this id, locked in the command's transaction: the lock every writer
 * of the resource's records takes first, and `appendLocked` asks for. None for an id that is
 * no uuid.
 */
export const lockRowOf = <T extends object>(
  scope: CommandScope,
  table: string,
  columns: string,
  id: string,
): Promise<RowLock<T> | undefined> =>
  isUuid(id) ? scope.lockRow<T>(table, id, columns) : Promise.resolve(undefined);
