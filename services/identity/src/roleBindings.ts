import {
  DomainError,
  actorMetadata,
  fetchSize,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateRoleBindingRequest,
  DeleteRoleBindingRequest,
  Done,
  GetRoleBindingRequest,
  ListRoleBindingsRequest,
  ListRoleBindingsResponse,
  RoleBinding,
  UpdateRoleBindingRequest,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { commit } from "./commit.ts";
import {
  decideCreateRoleBinding,
  decideDeleteRoleBinding,
  decideUpdateRoleBinding,
  type BindingResourceType,
  type SubjectType,
} from "./domain/roleBinding.ts";
import { loadVisibleSpace } from "./spaceAccess.ts";

interface BindingRow {
  id: string;
  role_id: string;
  subject_type: SubjectType;
  subject_id: string;
  resource_type: BindingResourceType;
  resource_id: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at";

export const toRoleBinding = (r: BindingRow): RoleBinding => ({
  id: r.id,
  roleId: r.role_id,
  subjectType: r.subject_type,
  subjectId: r.subject_id,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const BINDING_CONFLICT = {
  role_bindings_one_per_resource: "the subject already has a role binding on this resource",
};

/**
 * Who may act on bindings of a resource: SPACE bindings by holders of ROLE_BINDING_* in that
 * space; ORGANIZATION and PROJECT bindings by account admins (a project's space is not known
 * to identity). Account admins may do everything.
 */
function mayManage(ctx: CallContext, resourceType: string, resourceId: string, perm: string) {
  if (isAccountAdmin(ctx.principal)) return true;
  return resourceType === "SPACE" && hasSpacePermission(ctx.principal, resourceId, perm);
}

function mayRead(ctx: CallContext, r: BindingRow): boolean {
  const p = ctx.principal;
  const self =
    (r.subject_type === "USER" && r.subject_id === p.userId) ||
    (r.subject_type === "SERVICE_ACCOUNT" && r.subject_id === p.serviceAccountId);
  return self || mayManage(ctx, r.resource_type, r.resource_id, "ROLE_BINDING_READ");
}

export async function assertRoleInAccount(pool: Pool, ctx: CallContext, roleId: string) {
  const res = await tracedQuery(
    pool,
    "find role",
    "select 1 from roles where id = $1 and (account_id is null or account_id = $2)",
    [roleId, ctx.principal.accountId],
  );
  if (res.rowCount === 0) throw notFound("role");
}

/** A live subject of the caller's account, or 404. */
export async function assertSubjectInAccount(
  pool: Pool,
  ctx: CallContext,
  type: SubjectType,
  id: string,
) {
  const res = await tracedQuery(
    pool,
    "find subject",
    type === "USER"
      ? "select 1 from users where id = $1 and account_id = $2 and deleted_at is null"
      : "select 1 from service_accounts where id = $1 and account_id = $2",
    [id, ctx.principal.accountId],
  );
  if (res.rowCount === 0) throw notFound(type === "USER" ? "user" : "service account");
}

export function roleBindingHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;

  async function load(ctx: CallContext, id: string): Promise<BindingRow> {
    const res = await tracedQuery<BindingRow>(
      pool,
      "get role binding",
      `select ${COLUMNS} from role_bindings where id = $1 and account_id = $2`,
      [id, ctx.principal.accountId],
    );
    const row = res.rows[0];
    if (!row || !mayRead(ctx, row)) throw notFound("role binding");
    return row;
  }

  return {
    async listRoleBindings(
      req: ListRoleBindingsRequest,
      ctx: CallContext,
    ): Promise<ListRoleBindingsResponse> {
      const p = ctx.principal;
      // Non-admins see their own bindings and the bindings of spaces where they hold ROLE_BINDING_READ.
      const readable = Object.entries(p.spacePermissions)
        .filter(([, s]) => s.permissions.includes("ROLE_BINDING_READ"))
        .map(([id]) => id);
      const res = await tracedQuery<BindingRow>(
        pool,
        "list role bindings",
        `select ${COLUMNS} from role_bindings
          where account_id = $1
            and ($2::text is null or resource_type = $2)
            and ($3::uuid is null or (subject_type = 'USER' and subject_id = $3))
            and ($4 or (subject_type = 'USER' and subject_id = $5::uuid)
                    or (subject_type = 'SERVICE_ACCOUNT' and subject_id = $6::uuid)
                    or (resource_type = 'SPACE' and resource_id = any($7::uuid[])))
            and ($8::uuid is null or id < $8)
          order by id desc
          limit $9`,
        [
          p.accountId,
          req.resourceType || null,
          req.userId || null,
          isAccountAdmin(p),
          p.userId || null,
          p.serviceAccountId || null,
          readable,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      return { roleBindings: items.map(toRoleBinding), page: { nextAfter } };
    },

    async getRoleBinding(req: GetRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      return toRoleBinding(await load(ctx, req.id));
    },

    async createRoleBinding(req: CreateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const resourceType = req.resourceType as BindingResourceType;
      const subjectType = req.subjectType as SubjectType;
      if (resourceType === "SPACE") await loadVisibleSpace(pool, ctx, req.resourceId);
      if (!mayManage(ctx, resourceType, req.resourceId, "ROLE_BINDING_CREATE"))
        throw new DomainError(
          "access-forbidden",
          "creating this role binding requires ROLE_BINDING_CREATE",
        );
      await assertRoleInAccount(pool, ctx, req.roleId);
      await assertSubjectInAccount(pool, ctx, subjectType, req.subjectId);
      const id = uuidv7();
      const events = decideCreateRoleBinding({
        id,
        accountId: ctx.principal.accountId,
        roleId: req.roleId,
        subjectType,
        subjectId: req.subjectId,
        resourceType,
        resourceId: req.resourceId,
        subjectActive: true,
        now: new Date(),
      });
      await commit(
        store,
        `rolebinding-${id}`,
        0,
        events,
        {
          ...actorMetadata(ctx),
          role_binding_id: id,
          ...scopeMetadata(resourceType, req.resourceId),
        },
        BINDING_CONFLICT,
      );
      return toRoleBinding(await load(ctx, id));
    },

    async updateRoleBinding(req: UpdateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const row = await load(ctx, req.id);
      if (!mayManage(ctx, row.resource_type, row.resource_id, "ROLE_BINDING_CREATE"))
        throw new DomainError(
          "access-forbidden",
          "changing this role binding requires ROLE_BINDING_CREATE",
        );
      await assertRoleInAccount(pool, ctx, req.roleId);
      const events = decideUpdateRoleBinding(
        { roleId: req.roleId, now: new Date() },
        {
          id: row.id,
          roleId: row.role_id,
          subjectType: row.subject_type,
          subjectId: row.subject_id,
        },
      );
      if (events.length > 0)
        await commit(store, `rolebinding-${row.id}`, "any", events, {
          ...actorMetadata(ctx),
          role_binding_id: row.id,
          ...scopeMetadata(row.resource_type, row.resource_id),
        });
      return toRoleBinding(await load(ctx, row.id));
    },

    async deleteRoleBinding(req: DeleteRoleBindingRequest, ctx: CallContext): Promise<Done> {
      const row = await load(ctx, req.id);
      if (!mayManage(ctx, row.resource_type, row.resource_id, "ROLE_BINDING_DELETE"))
        throw new DomainError(
          "access-forbidden",
          "deleting this role binding requires ROLE_BINDING_DELETE",
        );
      const events = decideDeleteRoleBinding({
        id: row.id,
        roleId: row.role_id,
        subjectType: row.subject_type,
        subjectId: row.subject_id,
      });
      await commit(store, `rolebinding-${row.id}`, "any", events, {
        ...actorMetadata(ctx),
        role_binding_id: row.id,
        ...scopeMetadata(row.resource_type, row.resource_id),
      });
      return {};
    },
  };
}

export function scopeMetadata(type: string, id: string): Record<string, string> {
  if (type === "SPACE") return { space_id: id };
  if (type === "ORGANIZATION") return { organization_id: id };
  return { project_id: id };
}
