import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import {
  fetchSize,
  isAccountAdmin,
  notFound,
  pageOf,
  spaceRuleSql,
  type CallContext,
  type Permission,
} from "@argus/platform";
import { isUuid, SPACE_FACTS, type Spaces } from "@argus/spaces";
import type { PageRequest } from "@argus/proto/common/v1/common";

/**
 * Who may see an account-level resource with visibility scopings (AI integrations, AGENT and
 * EVALUATOR integrations): admins all of the account's; others those that apply to a space
 * where they hold `permission`: scoped to that space, or to its organization, or account-wide.
 * `$1` is the account; the rule's parameters start at `first`.
 */
function visibility(
  ctx: CallContext,
  permission: Permission,
  first: number,
): { sql: string; params: unknown[] } {
  const p = ctx.principal;
  const bySpace = spaceRuleSql(p, permission, "sf", first, SPACE_FACTS("sid"));
  const readable = spaceRuleSql(p, permission, "sf", first);
  if (isAccountAdmin(p)) return { sql: "account_id = $1", params: [] };
  const someReadableSpace = (where: string) =>
    `exists (select 1 from space_facts sf where sf.account_id = $1 and ${where} and ${readable.sql})`;
  return {
    sql: `account_id = $1 and (
      exists (select 1 from unnest(scoped_space_ids) sid where ${bySpace.sql})
      or (jsonb_array_length(scopings) = 0 and ${someReadableSpace("true")})
      or exists (select 1 from jsonb_array_elements(scopings) s
                  where s ->> 'space_id' is null
                    and ${someReadableSpace("(s ->> 'organization_id' is null or sf.organization_id = (s ->> 'organization_id')::uuid)")}))`,
    params: readable.params,
  };
}

/** A table of scoped resources: its name, its columns, what a caller reads them by. */
export interface ScopedTable {
  table: string;
  columns: string;
  permission: Permission;
  label: string;
}

/** The resource when the caller may see it; 404 otherwise. */
export async function visibleScoped<Row>(
  pool: Pool,
  t: ScopedTable,
  ctx: CallContext,
  id: string,
  where = "true",
): Promise<Row> {
  const visible = visibility(ctx, t.permission, 3);
  const res = isUuid(id)
    ? await tracedQuery<Row & object>(
        pool,
        `get ${t.label}`,
        `select ${t.columns} from ${t.table} where ${visible.sql} and id = $2 and ${where}`,
        [ctx.principal.accountId, id, ...visible.params],
      )
    : undefined;
  const found = res?.rows[0];
  if (!found) throw notFound(t.label);
  return found;
}

export interface ScopedListQuery {
  page?: PageRequest | undefined;
  spaceId: string;
  spaceName: string;
  name: string;
}

/**
 * A page of the visible resources, newest first: those applying to the space filtered on
 * (scoped to it, or account-wide), or to a space of the named ones, whose name contains `name`.
 * `where` narrows further with its own parameters, numbered from $7.
 */
export async function listScoped<Row extends { id: string }>(
  { pool, spaces }: { pool: Pool; spaces: Spaces },
  t: ScopedTable,
  req: ScopedListQuery,
  ctx: CallContext,
  where: { sql: string; params: unknown[] } = { sql: "true", params: [] },
): Promise<{ items: Row[]; nextAfter: string }> {
  if (req.spaceId) await spaces.get(ctx, req.spaceId);
  const named = req.spaceName ? await spaces.idsNamed(ctx, req.spaceName) : null;
  const visible = visibility(ctx, t.permission, 7 + where.params.length);
  const res = await tracedQuery<Row>(
    pool,
    `list ${t.label}s`,
    `select ${t.columns} from ${t.table}
      where ${visible.sql}
        and ($2::uuid is null or $2 = any(scoped_space_ids) or jsonb_array_length(scopings) = 0)
        and ($3::text is null or strpos(lower(name), lower($3)) > 0)
        and ($4::uuid is null or id < $4)
        and ($6::uuid[] is null or scoped_space_ids && $6::uuid[] or jsonb_array_length(scopings) = 0)
        and ${where.sql}
      order by id desc
      limit $5`,
    [
      ctx.principal.accountId,
      req.spaceId || null,
      req.name || null,
      req.page?.after || null,
      fetchSize(req.page),
      named,
      ...where.params,
      ...visible.params,
    ],
  );
  return pageOf(res.rows, req.page, (r) => r.id);
}
