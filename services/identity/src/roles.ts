import {
  DomainError,
  actorMetadata,
  fetchSize,
  notFound,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  CreateRoleRequest,
  DeleteRoleRequest,
  Done,
  GetRoleRequest,
  ListRolesRequest,
  ListRolesResponse,
  Role,
  UpdateRoleRequest,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { holdsAnywhere, requireAnywhere } from "./access.ts";
import { commit } from "./commit.ts";
import {
  decideCreateRole,
  decideDeleteRole,
  decideUpdateRole,
  type RoleState,
} from "./domain/role.ts";

interface RoleRow {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  is_predefined: boolean;
  created_at: Date;
  updated_at: Date;
  binding_count: number;
}

const COLUMNS = `id, name, description, permissions, is_predefined, created_at, updated_at,
  (select count(*)::int from role_bindings b where b.role_id = roles.id) as binding_count`;

/** Spec endpoint 14: a role's permissions are shown only to callers holding ROLE_READ. */
function toRole(r: RoleRow, ctx: CallContext): Role {
  const visible = holdsAnywhere(ctx.principal, "ROLE_READ");
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    permissions: visible ? r.permissions : [],
    permissionsVisible: visible,
    isPredefined: r.is_predefined,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

const toState = (r: RoleRow): RoleState => ({
  id: r.id,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  isPredefined: r.is_predefined,
  bindingCount: r.binding_count,
});

const NAME_CONFLICT = { roles_name_per_account: "a role with this name already exists" };

export function roleHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;

  /** Predefined roles are everyone's; a custom role of another account does not exist. */
  async function load(ctx: CallContext, id: string): Promise<RoleRow> {
    const res = await tracedQuery<RoleRow>(
      pool,
      "get role",
      `select ${COLUMNS} from roles where id = $1 and (account_id is null or account_id = $2)`,
      [id, ctx.principal.accountId],
    );
    const row = res.rows[0];
    if (!row) throw notFound("role");
    return row;
  }

  return {
    async listRoles(req: ListRolesRequest, ctx: CallContext): Promise<ListRolesResponse> {
      const res = await tracedQuery<RoleRow>(
        pool,
        "list roles",
        `select ${COLUMNS} from roles
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
      return toRole(await load(ctx, req.id), ctx);
    },

    async createRole(req: CreateRoleRequest, ctx: CallContext): Promise<Role> {
      requireAnywhere(ctx.principal, "ROLE_CREATE", "creating roles");
      const id = uuidv7();
      const events = decideCreateRole({
        id,
        accountId: ctx.principal.accountId,
        name: req.name,
        description: req.description,
        permissions: req.permissions,
        now: new Date(),
      });
      await commit(
        store,
        `role-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), role_id: id },
        NAME_CONFLICT,
      );
      return toRole(await load(ctx, id), ctx);
    },

    async updateRole(req: UpdateRoleRequest, ctx: CallContext): Promise<Role> {
      const row = await load(ctx, req.id);
      requireAnywhere(ctx.principal, "ROLE_UPDATE", "updating roles");
      const events = decideUpdateRole(
        {
          name: req.name,
          description: req.description,
          permissions: req.setPermissions ? req.permissions : undefined,
          now: new Date(),
        },
        toState(row),
      );
      await commit(
        store,
        `role-${row.id}`,
        "any",
        events,
        { ...actorMetadata(ctx), role_id: row.id },
        NAME_CONFLICT,
      );
      return toRole(await load(ctx, row.id), ctx);
    },

    async deleteRole(req: DeleteRoleRequest, ctx: CallContext): Promise<Done> {
      const row = await load(ctx, req.id);
      requireAnywhere(ctx.principal, "ROLE_DELETE", "deleting roles");
      const events = decideDeleteRole(toState(row));
      try {
        await commit(store, `role-${row.id}`, "any", events, {
          ...actorMetadata(ctx),
          role_id: row.id,
        });
      } catch (err) {
        // A binding created between the check and the delete: the foreign key says it is bound.
        if ((err as { code?: string }).code === "23503")
          throw new DomainError("resource-conflict", "the role is still bound");
        throw err;
      }
      return {};
    },
  };
}
