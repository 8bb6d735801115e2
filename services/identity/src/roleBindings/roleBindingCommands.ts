import {
  DomainError,
  notFound,
  actorMetadata,
  uuidv7,
  type CallContext,
  type Permission,
} from "@argus/platform";
import type {
  CreateRoleBindingRequest,
  DeleteRoleBindingRequest,
  Done,
  RoleBinding,
  UpdateRoleBindingRequest,
} from "@argus/proto/identity/v1";
import { streamId, type BindingResourceType, type SubjectType } from "@argus/contracts";
import type { PoolClient } from "pg";
import type { Queryable } from "@argus/eventstore";
import {
  roleBindingDecider,
  type BoundBinding,
  type RoleBindingCommand,
} from "./roleBindingDecider.ts";
import { toRoleBinding, type BindingRow } from "./roleBindingRows.ts";
import { loadReadableBinding, mayManage } from "./roleBindingQueries.ts";
import type { IdentityDeps } from "../deps.ts";
import { bindingTargets, grantedBinding, requireBindableRole } from "./roleBindingTargets.ts";
import { hold } from "../shared/holds.ts";

export const BINDING_CONFLICT = {
  role_bindings_one_per_resource: "the subject already has a role binding on this resource",
};

/** Event metadata naming the bound resource, so consumers can scope the event. */
export function bindingMetadata(ctx: CallContext, id: string, type: string, resourceId: string) {
  const scope =
    type === "SPACE"
      ? { space_id: resourceId }
      : type === "ORGANIZATION"
        ? { organization_id: resourceId }
        : { project_id: resourceId };
  return { ...actorMetadata(ctx), role_binding_id: id, ...scope };
}

async function mayManageAll(
  db: Queryable,
  ctx: CallContext,
  r: Pick<BindingRow, "resource_type" | "resource_id">,
  perms: readonly Permission[],
): Promise<boolean> {
  for (const perm of perms)
    if (!(await mayManage(db, ctx, r.resource_type, r.resource_id, perm))) return false;
  return true;
}

export function roleBindingCommands({ pool, commands, clock }: IdentityDeps) {
  /**
   * A change of a binding by whoever holds `permissions` on its resource. Anyone else is told
   * it is not there (404), as the public API answers, even one who may read it.
   */
  async function change(
    ctx: CallContext,
    id: string,
    permissions: readonly Permission[],
    command: (granted: BoundBinding | undefined, client: PoolClient) => Promise<RoleBindingCommand>,
  ): Promise<BindingRow> {
    const row = await loadReadableBinding(pool, ctx, id);
    if (!(await mayManageAll(pool, ctx, row, permissions))) throw notFound("role binding");
    await commands.handle(
      streamId("role_binding", row.id),
      roleBindingDecider,
      {
        build: async (state, client) =>
          command(
            state.status === "none" ? await grantedBinding(client, row.id) : undefined,
            client,
          ),
      },
      bindingMetadata(ctx, row.id, row.resource_type, row.resource_id),
    );
    return row;
  }

  return {
    async createRoleBinding(req: CreateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const accountId = ctx.principal.accountId;
      const target = {
        roleId: req.roleId,
        subjectType: req.subjectType as SubjectType,
        subjectId: req.subjectId,
        resourceType: req.resourceType as BindingResourceType,
        resourceId: req.resourceId,
      };
      // The public API: a resource the caller may not manage, or that is not there (or not in
      // the account), is one answer, 403; the decider says so of a resource an admin names.
      if (
        !(await mayManageAll(
          pool,
          ctx,
          { resource_type: target.resourceType, resource_id: target.resourceId },
          ["ROLE_BINDING_CREATE"],
        ))
      )
        throw new DomainError(
          "access-forbidden",
          "creating this role binding requires ROLE_BINDING_CREATE on the resource",
        );
      const id = uuidv7();
      await commands.handle(
        streamId("role_binding", id),
        roleBindingDecider,
        {
          build: async (_state, client) => {
            await requireBindableRole(client, ctx.principal, target.roleId);
            return {
              type: "CreateRoleBinding" as const,
              id,
              accountId,
              ...target,
              found: await bindingTargets(client, accountId, target),
              now: clock.now(),
            };
          },
        },
        bindingMetadata(ctx, id, target.resourceType, target.resourceId),
        { conflicts: BINDING_CONFLICT },
      );
      return toRoleBinding(await loadReadableBinding(pool, ctx, id));
    },

    async updateRoleBinding(req: UpdateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const accountId = ctx.principal.accountId;
      const row = await change(
        ctx,
        req.id,
        // The public API: both, as a change is a delete and a create of what the binding grants.
        ["ROLE_BINDING_CREATE", "ROLE_BINDING_DELETE"],
        async (granted, client) => {
          await requireBindableRole(client, ctx.principal, req.roleId);
          return {
            type: "UpdateRoleBinding" as const,
            roleId: req.roleId,
            roleFound: await hold(client, "role", req.roleId, accountId),
            granted,
            now: clock.now(),
          };
        },
      );
      return toRoleBinding(await loadReadableBinding(pool, ctx, row.id));
    },

    async deleteRoleBinding(req: DeleteRoleBindingRequest, ctx: CallContext): Promise<Done> {
      await change(ctx, req.id, ["ROLE_BINDING_DELETE"], async (granted) => ({
        type: "DeleteRoleBinding" as const,
        granted,
      }));
      return {};
    },
  };
}
