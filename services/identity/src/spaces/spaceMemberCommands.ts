import { notFound, type CallContext } from "@argus/platform";
import type {
  AddSpaceUserRequest,
  Done,
  RemoveSpaceUserRequest,
  SpaceMembership,
} from "@argus/proto/identity/v1";
import type { IdentityDeps } from "../deps.ts";
import { bindUser, unbindUser } from "../roleBindings/membershipBindings.ts";
import {
  membershipRole,
  predefinedRoleId,
  requireOrganizationMember,
  requireRoleFitsAccountRole,
} from "../roleBindings/membershipChecks.ts";
import { hold } from "../shared/holds.ts";
import { loadSpaceFor } from "./spaceAccess.ts";

/** Space users: role bindings of a USER on the space. */
export function spaceMemberCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async addSpaceUser(req: AddSpaceUserRequest, ctx: CallContext): Promise<SpaceMembership> {
      const accountId = ctx.principal.accountId;
      const space = await loadSpaceFor(
        pool,
        ctx,
        req.spaceId,
        "ROLE_BINDING_CREATE",
        "adding space users",
      );
      const roleId = req.customRoleId || predefinedRoleId(req.roleName);
      const on = { type: "SPACE" as const, id: space.id };
      const id = await bindUser(
        { commands, clock },
        ctx,
        on,
        req.userId,
        roleId,
        async ({ client }) => {
          if (!req.customRoleId)
            await requireRoleFitsAccountRole(client, accountId, req.userId, req.roleName, "space");
          else if (!(await hold(client, "role", roleId, accountId))) throw notFound("role");
          if (!(await hold(client, "user", req.userId, accountId))) throw notFound("user");
          await requireOrganizationMember(client, accountId, space.organization_id, req.userId);
        },
      );
      const role = await membershipRole(pool, roleId);
      return { id, userId: req.userId, spaceId: req.spaceId, ...role };
    },

    async removeSpaceUser(req: RemoveSpaceUserRequest, ctx: CallContext): Promise<Done> {
      const what = "removing space users";
      await loadSpaceFor(pool, ctx, req.spaceId, "ROLE_BINDING_DELETE", what);
      await unbindUser(commands, ctx, { type: "SPACE", id: req.spaceId }, req.userId);
      return {};
    },
  };
}
