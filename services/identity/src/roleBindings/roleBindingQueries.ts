import {
  decideInSpace,
  fetchSize,
  hasSpacePermission,
  spaceRuleSql,
  isAccountAdmin,
  notFound,
  pageOf,
  type CallContext,
  type Permission,
} from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type {
  GetRoleBindingRequest,
  ListRoleBindingsRequest,
  ListRoleBindingsResponse,
  RoleBinding,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { BINDING_COLUMNS, toRoleBinding, type BindingRow } from "./roleBindingRows.ts";
import { spaceFacts } from "../spaces/spaceRows.ts";
import { findSpace } from "../spaces/spaceAccess.ts";

/**
 * Who may act on bindings of a resource: SPACE bindings by holders of ROLE_BINDING_* in that
 * space; ORGANIZATION and PROJECT bindings by account admins (a project's space is not known
 * to identity). Account admins may do everything.
 */
export async function mayManage(
  db: Queryable,
  ctx: CallContext,
  resourceType: string,
  resourceId: string,
  permission: Permission,
): Promise<boolean> {
  const p = ctx.principal;
  if (isAccountAdmin(p)) return true;
  if (resourceType !== "SPACE") return false;
  const alone = decideInSpace(p, resourceId, permission);
  if (alone !== undefined) return alone;
  const space = await findSpace(db, ctx, resourceId);
  return space !== undefined && hasSpacePermission(p, spaceFacts(space), permission);
}

async function mayRead(db: Queryable, ctx: CallContext, r: BindingRow): Promise<boolean> {
  const p = ctx.principal;
  const self =
    (r.subject_type === "USER" && r.subject_id === p.userId) ||
    (r.subject_type === "SERVICE_ACCOUNT" && r.subject_id === p.serviceAccountId);
  return self || mayManage(db, ctx, r.resource_type, r.resource_id, "ROLE_BINDING_READ");
}

/** The binding if the caller may read it (their own, or one they may manage); 404 otherwise. */
export async function loadReadableBinding(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<BindingRow> {
  const res = await tracedQuery<BindingRow>(
    db,
    "get role binding",
    `select ${BINDING_COLUMNS} from role_bindings where id = $1 and account_id = $2`,
    [id, ctx.principal.accountId],
  );
  const row = res.rows[0];
  if (!row || !(await mayRead(db, ctx, row))) throw notFound("role binding");
  return row;
}

/** Whether the id is a live user's or a service account's of the account. */
async function subjectExists(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const res = await tracedQuery(
    db,
    "find binding subject",
    `select 1 from users where id = $1 and account_id = $2 and deleted_at is null
     union all
     select 1 from service_accounts where id = $1 and account_id = $2`,
    [id, accountId],
  );
  return res.rows.length > 0;
}

export function roleBindingQueries({ pool }: { pool: Pool }) {
  return {
    async listRoleBindings(
      req: ListRoleBindingsRequest,
      ctx: CallContext,
    ): Promise<ListRoleBindingsResponse> {
      const p = ctx.principal;
      // The public API: a user_id that names no user (or key's bot user) of the account is a 404.
      if (req.userId && !(await subjectExists(pool, p.accountId, req.userId)))
        throw notFound("user");
      // $3 is a user's or a service account's id (uuids never collide across the two).
      // Non-admins see their own bindings and the bindings of spaces where they hold ROLE_BINDING_READ.
      const readable = spaceRuleSql(p, "ROLE_BINDING_READ", "s", 9);
      const res = await tracedQuery<BindingRow>(
        pool,
        "list role bindings",
        `select ${BINDING_COLUMNS} from role_bindings
          where account_id = $1
            and ($2::text is null or resource_type = $2)
            and ($3::uuid is null or subject_id = $3)
            and ($4 or (subject_type = 'USER' and subject_id = $5::uuid)
                    or (subject_type = 'SERVICE_ACCOUNT' and subject_id = $6::uuid)
                    or (resource_type = 'SPACE' and exists (
                          select 1 from spaces s where s.id = resource_id and s.account_id = $1
                             and ${readable.sql})))
            and ($7::uuid is null or id < $7)
          order by id desc
          limit $8`,
        [
          p.accountId,
          req.resourceType || null,
          req.userId || null,
          isAccountAdmin(p),
          p.userId || null,
          p.serviceAccountId || null,
          req.page?.after || null,
          fetchSize(req.page),
          ...readable.params,
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { roleBindings: items.map(toRoleBinding), page: { nextAfter } };
    },

    async getRoleBinding(req: GetRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      return toRoleBinding(await loadReadableBinding(pool, ctx, req.id));
    },
  };
}
