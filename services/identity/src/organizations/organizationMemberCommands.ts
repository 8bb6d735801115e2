import { notFound, type CallContext } from "@argus/platform";
import type {
  AddOrganizationUserRequest,
  Done,
  OrganizationMembership,
  RemoveOrganizationUserRequest,
} from "@argus/proto/identity/v1";
import type { IdentityDeps } from "../deps.ts";
import { addMember, unbindUser } from "../roleBindings/membershipBindings.ts";
import { hold } from "../shared/holds.ts";
import { loadOrganizationFor } from "./organizationQueries.ts";

/** Organization users: role bindings of a USER on the organization. */
export function organizationMemberCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async addOrganizationUser(
      req: AddOrganizationUserRequest,
      ctx: CallContext,
    ): Promise<OrganizationMembership> {
      await loadOrganizationFor(pool, ctx, req.organizationId, "adding organization users");
      const on = { type: "ORGANIZATION" as const, id: req.organizationId };
      const { id, ...role } = await addMember(
        { pool, commands, clock },
        ctx,
        on,
        req,
        async (client, account) => {
          // A predefined role's check found the user already (without holding it).
          if (req.customRoleId && !(await hold(client, "user", req.userId, account)))
            throw notFound("user");
        },
      );
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
