import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf, type CallContext, type Permission } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";
import { listableSpaceIds } from "../adapters/spaceAccess.ts";
import type { Spaces } from "../adapters/spaces.ts";
import { updatedAfter, updatedKey } from "../projections/updatedPaging.ts";

export interface SpaceListRequest {
  spaceId: string;
  spaceName: string;
  name: string;
  page?: PageRequest | undefined;
}

/** A table of space-owned resources, listed newest first or most recently updated first. */
export interface SpaceList {
  table: string;
  columns: string;
  read: Permission;
  order: "id" | "updated";
}

/**
 * One page of the resources the caller may read: filtered by space (id or name, as
 * `listableSpaceIds` rules) and by a case-insensitive name substring, keyset-paged.
 */
export async function listInSpaces<Row extends { id: string; updated_at?: Date }>(
  deps: { pool: Pool; spaces: Spaces },
  ctx: CallContext,
  req: SpaceListRequest,
  list: SpaceList,
): Promise<{ items: Row[]; nextAfter: string }> {
  const filter = { spaceId: req.spaceId, spaceName: req.spaceName };
  const spaceIds = await listableSpaceIds(deps.spaces, ctx, filter, list.read);
  const byUpdate = list.order === "updated";
  const after = byUpdate
    ? updatedAfter(req.page?.after)
    : { at: null, id: req.page?.after || null };
  const res = await tracedQuery<Row>(
    deps.pool,
    `list ${list.table}`,
    `select ${list.columns} from ${list.table}
      where account_id = $1
        and ($2::uuid[] is null or space_id = any($2::uuid[]))
        and ($3::text is null or strpos(lower(name), lower($3)) > 0)
        and ($5::uuid is null or ${byUpdate ? "(updated_at, id) < ($4::timestamptz, $5)" : "($4::timestamptz is null and id < $5)"})
      order by ${byUpdate ? "updated_at desc, id desc" : "id desc"}
      limit $6`,
    [ctx.principal.accountId, spaceIds, req.name || null, after.at, after.id, fetchSize(req.page)],
  );
  const key = (r: Row) => (byUpdate ? updatedKey({ id: r.id, updated_at: r.updated_at! }) : r.id);
  return pageOf(res.rows, req.page, key);
}
