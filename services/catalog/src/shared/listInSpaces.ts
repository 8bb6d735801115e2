import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { fetchSize, pageOf, type CallContext, type Permission } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";
import { confirmListed, listableSpaces, type Spaces } from "@argus/spaces";
import { updatedAfter, updatedKey } from "./updatedPaging.ts";

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
 * `listableSpaces` rules) and by a case-insensitive name substring, keyset-paged.
 */
export async function listInSpaces<Row extends { id: string; space_id: string; updated_at?: Date }>(
  deps: { pool: Pool; spaces: Spaces },
  ctx: CallContext,
  req: SpaceListRequest,
  list: SpaceList,
): Promise<{ items: Row[]; nextAfter: string }> {
  const filter = { spaceId: req.spaceId, spaceName: req.spaceName };
  const readable = await listableSpaces(deps.spaces, ctx, filter, list.read, "t.space_id", 6);
  const byUpdate = list.order === "updated";
  const after = byUpdate
    ? updatedAfter(req.page?.after)
    : { at: null, id: req.page?.after || null };
  const res = await tracedQuery<Row>(
    deps.pool,
    `list ${list.table}`,
    `select ${list.columns} from ${list.table} t
      where account_id = $1
        and ${readable.sql}
        and ($2::text is null or strpos(lower(name), lower($2)) > 0)
        and ($4::uuid is null or ${byUpdate ? "(updated_at, id) < ($3::timestamptz, $4)" : "($3::timestamptz is null and id < $4)"})
      order by ${byUpdate ? "updated_at desc, id desc" : "id desc"}
      limit $5`,
    [
      ctx.principal.accountId,
      req.name || null,
      after.at,
      after.id,
      fetchSize(req.page),
      ...readable.params,
    ],
  );
  const key = (r: Row) => (byUpdate ? updatedKey({ id: r.id, updated_at: r.updated_at! }) : r.id);
  const page = pageOf(res.rows, req.page, key);
  // The cursor stays where the scan ended; a row taken away since is left out of this page.
  const items = await confirmListed(deps.spaces, ctx, page.items, list.read, (r) => ({
    spaceId: r.space_id,
  }));
  return { items, nextAfter: page.nextAfter };
}
