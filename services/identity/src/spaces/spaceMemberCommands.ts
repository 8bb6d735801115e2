import { notFound, type CallContext } from "@argus/platform";
import type {
  AddSpaceUserRequest,
  Done,
  RemoveSpaceUserRequest,
  SpaceMembership,
} from "@argus/proto/identity/v1";
import type { IdentityDeps } from "../deps.ts";
import { addMember, unbindUser } from "../roleBindings/membershipBindings.ts";
import { requireOrganizationMember } from "../roleBindings/membershipChecks.ts";
import { hold } from "../shared/holds.ts";
import { loadSpaceFor } from "./spaceAccess.ts";

/** Space users: role bindings of a USER on the space. */
export function spaceMemberCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async addSpaceUser(req: AddSpaceUserRequest, ctx: CallContext): Promise<SpaceMembership> {
      const space = await loadSpaceFor(
        pool,
        ctx,
        req.spaceId,
        "ROLE_BINDING_CREATE",
        "adding space users",
      );
      const on = { type: "SPACE" as const, id: space.id };
      const { id, ...role } = await addMember(
        { pool, commands, clock },
        ctx,
        on,
        req,
        async (client, account) => {
          if (!(await hold(client, "user", req.userId, account))) throw notFound("user");
          await requireOrganizationMember(client, account, space.organization_id, req.userId);
        },
      );
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
