// Shared by every service that owns space-scoped resources: the rows of such resources carry
// their account and space, and are read and authorized the same way in each service.
import type { Pool, PoolClient } from "pg";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import { notFound, type CallContext, type Permission, type ResourceAccess } from "@argus/platform";
import { requirePermissionAt, type RowPlace } from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";
import { isUuid } from "@argus/platform";

/** A projection row of a space-owned resource. */
export interface SpaceRow {
  id: string;
  account_id: string;
  space_id: string;
}

/** Where the row's resource lives, for `requirePermissionAt`. */
export const placeOf = (r: SpaceRow): RowPlace => ({
  accountId: r.account_id,
  spaceId: r.space_id,
});

/** A project's place names it too: a restricted project answers only to its own bindings. */
export const projectPlaceOf = (r: SpaceRow): RowPlace => ({ ...placeOf(r), projectId: r.id });

/** JSON text for a jsonb parameter; null stays SQL null. */
export const json = (v: unknown): string | null =>
  v === null || v === undefined ? null : JSON.stringify(v);

/** The row, when the caller may act on it with `permission` (else its 404 or 403). */
export async function authorized<T extends SpaceRow>(
  spaces: Spaces,
  ctx: CallContext,
  row: T | undefined,
  access: ResourceAccess,
  permission?: Permission,
  place: (row: T) => RowPlace = placeOf,
): Promise<T> {
  await requirePermissionAt(spaces, ctx, row && place(row), access, permission);
  return row!;
}

/** The row of `table` with this id (`columns` selected); none for an id that is no uuid. */
export async function rowById<T extends object>(
  db: Pool | PoolClient,
  table: string,
  columns: string,
  id: string,
): Promise<T | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await tracedQuery<T & { id: string }>(
    db,
    `get ${table}`,
    `select ${columns} from ${table} where id = $1`,
    [id],
  );
  return res.rows[0];
}

/**
 * The row of `table` with this id in the caller's account (`columns` selected), else `label`'s
 * 404 — an id that is no uuid included. Authorization beyond the account is the caller's.
 */
export async function rowInAccount<T extends object>(
  db: Queryable,
  ctx: CallContext,
  table: string,
  columns: string,
  id: string,
  label: string,
): Promise<T> {
  if (!isUuid(id)) throw notFound(label);
  const res = await tracedQuery<T>(
    db,
    label,
    `select ${columns} from ${table} where id = $1 and account_id = $2`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row) throw notFound(label);
  return row;
}

/** The first row of `select` (a query ending before its where clause) matching `where`. */
export async function firstWhere<T extends object>(
  db: Pool | PoolClient,
  name: string,
  select: string,
  where: string,
  values: string[],
): Promise<T | undefined> {
  const res = await tracedQuery<T & { id: string }>(
    db,
    name,
    `${select} where ${where} limit 1`,
    values,
  );
  return res.rows[0];
}
