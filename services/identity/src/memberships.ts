import {
  DomainError,
  PREDEFINED_ROLES,
  actorMetadata,
  hasSpacePermission,
  notFound,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  AddOrganizationUserRequest,
  AddSpaceUserRequest,
  Done,
  OrganizationMembership,
  RemoveOrganizationUserRequest,
  RemoveSpaceUserRequest,
  SpaceMembership,
} from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { requireAdmin } from "./access.ts";
import { commit } from "./commit.ts";
import {
  decideCreateRoleBinding,
  decideDeleteRoleBinding,
  decideUpdateRoleBinding,
  type BindingResourceType,
  type RoleBindingEvent,
} from "./domain/roleBinding.ts";
import {
  BINDING_CONFLICT,
  assertRoleInAccount,
  assertSubjectInAccount,
  scopeMetadata,
} from "./roleBindings.ts";
import { loadVisibleSpace } from "./spaceAccess.ts";

interface ExistingBinding {
  id: string;
  role_id: string;
}

/**
 * Space and organization users are role bindings of a USER on the resource: adding a user
 * already bound changes the role of that binding (one binding per user and resource).
 */
export function membershipHandlers(deps: { pool: Pool; store: EventStore }) {
  const { pool, store } = deps;

  function predefinedId(name: string): string {
    const role = PREDEFINED_ROLES.find((r) => r.name === name);
    if (!role) throw new DomainError("invalid-request", `unknown predefined role ${name}`);
    return role.id;
  }

  async function existing(
    ctx: CallContext,
    type: BindingResourceType,
    resourceId: string,
    userId: string,
  ): Promise<ExistingBinding | undefined> {
    const res = await tracedQuery<ExistingBinding>(
      pool,
      "find membership",
      `select id, role_id from role_bindings
        where account_id = $1 and subject_type = 'USER' and subject_id = $2
          and resource_type = $3 and resource_id = $4`,
      [ctx.principal.accountId, userId, type, resourceId],
    );
    return res.rows[0];
  }

  /** Binds (or rebinds) the user; returns the binding id. */
  async function bind(
    ctx: CallContext,
    type: BindingResourceType,
    resourceId: string,
    userId: string,
    roleId: string,
  ): Promise<string> {
    await assertSubjectInAccount(pool, ctx, "USER", userId);
    const now = new Date();
    const found = await existing(ctx, type, resourceId, userId);
    const id = found?.id ?? uuidv7();
    const events: RoleBindingEvent[] = found
      ? decideUpdateRoleBinding(
          { roleId, now },
          { id, roleId: found.role_id, subjectType: "USER", subjectId: userId },
        )
      : decideCreateRoleBinding({
          id,
          accountId: ctx.principal.accountId,
          roleId,
          subjectType: "USER",
          subjectId: userId,
          resourceType: type,
          resourceId,
          subjectActive: true,
          now,
        });
    if (events.length > 0)
      await commit(
        store,
        `rolebinding-${id}`,
        found ? "any" : 0,
        events,
        { ...actorMetadata(ctx), role_binding_id: id, ...scopeMetadata(type, resourceId) },
        BINDING_CONFLICT,
      );
    return id;
  }

  async function unbind(
    ctx: CallContext,
    type: BindingResourceType,
    resourceId: string,
    userId: string,
  ): Promise<void> {
    const found = await existing(ctx, type, resourceId, userId);
    if (!found) throw notFound("membership");
    const events = decideDeleteRoleBinding({
      id: found.id,
      roleId: found.role_id,
      subjectType: "USER",
      subjectId: userId,
    });
    await commit(store, `rolebinding-${found.id}`, "any", events, {
      ...actorMetadata(ctx),
      role_binding_id: found.id,
      ...scopeMetadata(type, resourceId),
    });
  }

  /**
   * As the public API: annotators get only the ANNOTATOR role, and only annotators do; the
   * public API answers 422 for a space role and 400 for an organization role.
   */
  async function requireRoleFitsAccountRole(
    ctx: CallContext,
    userId: string,
    roleName: string,
    on: "space" | "organization" = "space",
  ) {
    const res = await tracedQuery<{ account_role: string }>(
      pool,
      "user account role",
      "select account_role from users where id = $1 and account_id = $2 and deleted_at is null",
      [userId, ctx.principal.accountId],
    );
    const accountRole = res.rows[0]?.account_role;
    if (accountRole === undefined) throw notFound("user");
    if ((accountRole === "annotator") !== (roleName === "ANNOTATOR"))
      throw new DomainError(
        on === "space" ? "unprocessable-entity" : "invalid-request",
        `the ANNOTATOR ${on} role is for annotators only, and annotators may hold only it`,
      );
  }

  /**
   * As the public API: a user is added to a space only if they already belong to its
   * organization (an ORGANIZATION binding; account admins belong to every organization).
   * No auto-enrollment: 400 otherwise.
   */
  async function requireOrganizationMember(
    ctx: CallContext,
    organizationId: string,
    userId: string,
  ): Promise<void> {
    const res = await tracedQuery(
      pool,
      "organization member",
      `select 1 from users u
        where u.id = $1 and u.account_id = $2 and u.deleted_at is null
          and (u.account_role = 'admin'
            or exists (select 1 from role_bindings rb
                        where rb.account_id = $2 and rb.subject_type = 'USER' and rb.subject_id = u.id
                          and rb.resource_type = 'ORGANIZATION' and rb.resource_id = $3))`,
      [userId, ctx.principal.accountId, organizationId],
    );
    if (res.rowCount === 0)
      throw new DomainError(
        "invalid-request",
        "the user must already be a member of the space's organization (add_organization_user first)",
      );
  }

  async function roleName(roleId: string): Promise<{ predefined: string; customName: string }> {
    const res = await tracedQuery<{ name: string; is_predefined: boolean }>(
      pool,
      "role name",
      "select name, is_predefined from roles where id = $1",
      [roleId],
    );
    const r = res.rows[0]!;
    return r.is_predefined
      ? { predefined: r.name, customName: "" }
      : { predefined: "", customName: r.name };
  }

  return {
    async addSpaceUser(req: AddSpaceUserRequest, ctx: CallContext): Promise<SpaceMembership> {
      const space = await loadVisibleSpace(pool, ctx, req.spaceId);
      if (!hasSpacePermission(ctx.principal, req.spaceId, "ROLE_BINDING_CREATE"))
        throw new DomainError(
          "access-forbidden",
          "adding space users requires ROLE_BINDING_CREATE",
        );
      const roleId = req.customRoleId || predefinedId(req.roleName);
      if (req.customRoleId) await assertRoleInAccount(pool, ctx, roleId);
      else await requireRoleFitsAccountRole(ctx, req.userId, req.roleName);
      await assertSubjectInAccount(pool, ctx, "USER", req.userId);
      await requireOrganizationMember(ctx, space.organization_id, req.userId);
      const id = await bind(ctx, "SPACE", req.spaceId, req.userId, roleId);
      const name = await roleName(roleId);
      return {
        id,
        userId: req.userId,
        spaceId: req.spaceId,
        roleName: name.predefined,
        customRoleId: name.predefined ? "" : roleId,
        customRoleName: name.customName,
      };
    },

    async removeSpaceUser(req: RemoveSpaceUserRequest, ctx: CallContext): Promise<Done> {
      await loadVisibleSpace(pool, ctx, req.spaceId);
      if (!hasSpacePermission(ctx.principal, req.spaceId, "ROLE_BINDING_DELETE"))
        throw new DomainError(
          "access-forbidden",
          "removing space users requires ROLE_BINDING_DELETE",
        );
      await unbind(ctx, "SPACE", req.spaceId, req.userId);
      return {};
    },

    async addOrganizationUser(
      req: AddOrganizationUserRequest,
      ctx: CallContext,
    ): Promise<OrganizationMembership> {
      await assertOrganization(pool, ctx, req.organizationId);
      requireAdmin(ctx.principal, "adding organization users");
      await requireRoleFitsAccountRole(ctx, req.userId, req.roleName, "organization");
      const id = await bind(
        ctx,
        "ORGANIZATION",
        req.organizationId,
        req.userId,
        predefinedId(req.roleName),
      );
      return { id, userId: req.userId, organizationId: req.organizationId, roleName: req.roleName };
    },

    async removeOrganizationUser(
      req: RemoveOrganizationUserRequest,
      ctx: CallContext,
    ): Promise<Done> {
      await assertOrganization(pool, ctx, req.organizationId);
      requireAdmin(ctx.principal, "removing organization users");
      await unbind(ctx, "ORGANIZATION", req.organizationId, req.userId);
      return {};
    },
  };
}

export async function assertOrganization(pool: Pool, ctx: CallContext, id: string): Promise<void> {
  const res = await tracedQuery(
    pool,
    "find organization",
    "select 1 from organizations where id = $1 and account_id = $2",
    [id, ctx.principal.accountId],
  );
  if (res.rowCount === 0) throw notFound("organization");
}
