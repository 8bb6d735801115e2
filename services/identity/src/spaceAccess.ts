import { isAccountAdmin, notFound, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { Pool } from "pg";

export interface SpaceRow {
  id: string;
  account_id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
}

/** Private spaces are invisible to non-members who are not admins (ARCHITECTURE §8). */
export function spaceVisibleTo(
  ctx: CallContext,
  row: Pick<SpaceRow, "id" | "is_private">,
): boolean {
  return (
    !row.is_private || isAccountAdmin(ctx.principal) || row.id in ctx.principal.spacePermissions
  );
}

/** The space if it is in the caller's account and visible to the caller; 404 otherwise. */
export async function loadVisibleSpace(
  pool: Pool,
  ctx: CallContext,
  id: string,
): Promise<SpaceRow> {
  const res = await tracedQuery<SpaceRow>(
    pool,
    "get space",
    `select id, account_id, organization_id, name, description, is_private, created_at
       from spaces where id = $1 and account_id = $2`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row || !spaceVisibleTo(ctx, row)) throw notFound("space");
  return row;
}
