import {
  canSeeSpace,
  notFound,
  requireSpacePermissionTo,
  type CallContext,
  type Permission,
} from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import { SPACE_COLUMNS, spaceFacts, type SpaceRow } from "./spaceRows.ts";

/** Private spaces are invisible to non-members who are not admins (ARCHITECTURE §8). */
const visibleTo = (
  ctx: CallContext,
  row: Pick<SpaceRow, "id" | "organization_id" | "is_private">,
): boolean => canSeeSpace(ctx.principal, spaceFacts(row));

// Built once: a statement's text is the key of its prepared name (tracedQuery), and a text
// built per call is hashed again on every call.
const SELECT_SPACE = `select ${SPACE_COLUMNS} from spaces where id = $1 and account_id = $2`;

/** The space of the caller's account with this id, whoever may see it. */
export async function findSpace(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<SpaceRow | undefined> {
  const res = await tracedQuery<SpaceRow>(db, "get space", SELECT_SPACE, [
    id,
    ctx.principal.accountId,
  ]);
  return res.rows[0];
}

/** The space if it is in the caller's account and visible to the caller; 404 otherwise. */
export async function loadVisibleSpace(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<SpaceRow> {
  const row = await findSpace(db, ctx, id);
  if (!row || !visibleTo(ctx, row)) throw notFound("space");
  return row;
}

/** The visible space the caller may act on with `permission` (404 if invisible, else 403). */
export async function loadSpaceFor(
  db: Queryable,
  ctx: CallContext,
  id: string,
  permission: Permission,
  what: string,
): Promise<SpaceRow> {
  const row = await loadVisibleSpace(db, ctx, id);
  requireSpacePermissionTo(ctx.principal, spaceFacts(row), permission, what);
  return row;
}
