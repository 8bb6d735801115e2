import { notFound, type CallContext } from "@argus/platform";
import type {
  AddOrganizationUserRequest,
  Done,
  OrganizationMembership,
  RemoveOrganizationUserRequest,
} from "@argus/proto/identity/v1";
import type { IdentityDeps } from "../deps.ts";
import { bindUser, unbindUser } from "../roleBindings/membershipBindings.ts";
import {
  membershipRole,
  predefinedRoleId,
  requireRoleFitsAccountRole,
} from "../roleBindings/membershipChecks.ts";
import { hold } from "../shared/holds.ts";
import { loadOrganizationFor } from "./organizationQueries.ts";

/** Organization users: role bindings of a USER on the organization. */
export function organizationMemberCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async addOrganizationUser(
      req: AddOrganizationUserRequest,
      ctx: CallContext,
    ): Promise<OrganizationMembership> {
      const accountId = ctx.principal.accountId;
      await loadOrganizationFor(pool, ctx, req.organizationId, "adding organization users");
      const on = { type: "ORGANIZATION" as const, id: req.organizationId };
      // A custom role makes the user a member, as any role below ADMIN (README).
      const roleId = req.customRoleId || predefinedRoleId(req.roleName);
      const id = await bindUser(
        { commands, clock },
        ctx,
        on,
        req.userId,
        roleId,
        async ({ client }) => {
          if (!req.customRoleId)
            await requireRoleFitsAccountRole(
              client,
              accountId,
              req.userId,
              req.roleName,
              "organization",
            );
          else if (!(await hold(client, "role", roleId, accountId))) throw notFound("role");
          else if (!(await hold(client, "user", req.userId, accountId))) throw notFound("user");
        },
      );
      const role = await membershipRole(pool, roleId);
      return { id, userId: req.userId, organizationId: req.organizationId, ...role };
    },

    async removeOrganizationUser(
      req: RemoveOrganizationUserRequest,
      ctx: CallContext,
    ): Promise<Done> {
      await loadOrganizationFor(pool, ctx, req.organizationId, "removing organization users");
      await unbindUser(commands, ctx, { type: "ORGANIZATION", id: req.organizationId }, req.userId);
      return {};
    },
  };
}
