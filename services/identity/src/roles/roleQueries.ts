import { fetchSize, notFound, pageOf, type CallContext } from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type {
  GetRoleRequest,
  ListRolesRequest,
  ListRolesResponse,
  Role,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { ROLE_COLUMNS, toRole, type RoleRow } from "./roleRows.ts";

/** Predefined roles are everyone's; a custom role of another account does not exist (404). */
export async function loadRole(db: Queryable, ctx: CallContext, id: string): Promise<RoleRow> {
  const res = await tracedQuery<RoleRow>(
    db,
    "get role",
    `select ${ROLE_COLUMNS} from roles where id = $1 and (account_id is null or account_id = $2)`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row) throw notFound("role");
  return row;
}

export function roleQueries({ pool }: { pool: Pool }) {
  return {
    async listRoles(req: ListRolesRequest, ctx: CallContext): Promise<ListRolesResponse> {
      const res = await tracedQuery<RoleRow>(
        pool,
        "list roles",
        `select ${ROLE_COLUMNS} from roles
          where (account_id is null or account_id = $1)
            and ($2::boolean is null or is_predefined = $2)
            and ($3::uuid is null or id < $3)
          order by id desc
          limit $4`,
        [
          ctx.principal.accountId,
          req.isPredefined ?? null,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { roles: items.map((r) => toRole(r, ctx)), page: { nextAfter } };
    },

    async getRole(req: GetRoleRequest, ctx: CallContext): Promise<Role> {
      return toRole(await loadRole(pool, ctx, req.id), ctx);
    },
  };
}
