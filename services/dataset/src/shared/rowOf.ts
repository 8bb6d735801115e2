import type { Pool, PoolClient } from "pg";
import { tracedQuery, type CommandScope, type LockFirst, type RowLock } from "@argus/eventstore";
import { notFound, type CallContext, type Permission, type ResourceAccess } from "@argus/platform";
import { authorized, isUuid, type SpaceRow } from "@argus/spaces";
import type { DatasetDeps } from "../deps.ts";

/**
 * The row of `table` with this id, row-locked when `lock` (the lock every writer of the
 * resource's records takes first); none for an id that is no uuid.
 */
async function rowOf<T extends object>(
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
const lockRowOf = <T extends object>(
  scope: CommandScope,
  table: string,
  columns: string,
  id: string,
): Promise<RowLock<T> | undefined> =>
  isUuid(id) ? scope.lockRow<T>(table, id, columns) : Promise.resolve(undefined);

/**
 * The ways a space-owned resource's row is read, the same for each of the service's resources:
 * by id (row-locked on request), locked in a command, as the caller may act on it with a
 * permission (404 / 403 otherwise; in a command too, under its lock), and in the account a peer
 * service names (404 otherwise).
 */
export function resourceRows<T extends SpaceRow>(
  table: string,
  columns: string,
  access: ResourceAccess,
) {
  const find = (db: Pool | PoolClient, id: string, lock = false) =>
    rowOf<T>(db, table, columns, id, lock);
  return {
    find,
    lock: (scope: CommandScope, id: string) => lockRowOf<T>(scope, table, columns, id),
    /** The same lock taken with BEGIN, and `then` under it (the command's `lockFirst`). */
    first: (id: string, then?: string): LockFirst => ({ table, id, columns, then }),
    /**
     * The lock `first` took, as the caller may act on the row with `permission` (404 / 403
     * otherwise): authorized on the row the lock read, so a write reads it once, not once
     * before its transaction and again under the lock.
     */
    async firstAs(
      scope: CommandScope,
      deps: Pick<DatasetDeps, "spaces">,
      ctx: CallContext,
      permission: Permission,
    ): Promise<RowLock<T>> {
      if (!scope.first) throw new Error(`the command took no lock of ${table} first`);
      // The row of `columns` of `table`, as `first` asked for it.
      const lock = scope.first.lock as RowLock<T> | undefined;
      await authorized(deps.spaces, ctx, lock?.row, access, permission);
      return lock!;
    },
    async load(
      deps: Pick<DatasetDeps, "pool" | "spaces">,
      ctx: CallContext,
      id: string,
      permission?: Permission,
    ): Promise<T> {
      return authorized(deps.spaces, ctx, await find(deps.pool, id), access, permission);
    },
    async inAccount(db: Pool | PoolClient, accountId: string, id: string, lock = false) {
      const row = await find(db, id, lock);
      if (!row || row.account_id !== accountId) throw notFound(access.label);
      return row;
    },
  };
}
