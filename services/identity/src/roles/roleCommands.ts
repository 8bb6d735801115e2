import { actorMetadata, requireAnywhere, uuidv7, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  CreateRoleRequest,
  DeleteRoleRequest,
  Done,
  Role,
  UpdateRoleRequest,
} from "@argus/proto/identity/v1";
import { streamId } from "@argus/contracts";
import { roleDecider } from "./roleDecider.ts";
import { toRole } from "./roleRows.ts";
import { loadRole } from "./roleQueries.ts";
import type { IdentityDeps } from "../deps.ts";

const NAME_CONFLICT = { roles_name_per_account: "a role with this name already exists" };
// A binding made after the count (it holds the role's row until it commits): still bound.
const BOUND_CONFLICT = { role_bindings_role_id_fkey: "the role is still bound" };

export function roleCommands({ pool, commands, clock }: IdentityDeps) {
  return {
    async createRole(req: CreateRoleRequest, ctx: CallContext): Promise<Role> {
      requireAnywhere(ctx.principal, "ROLE_CREATE", "creating roles");
      const id = uuidv7();
      await commands.handle(
        streamId("role", id),
        roleDecider,
        {
          type: "CreateRole",
          id,
          accountId: ctx.principal.accountId,
          name: req.name,
          description: req.description,
          permissions: req.permissions,
          now: clock.now(),
        },
        { ...actorMetadata(ctx), role_id: id },
        { conflicts: NAME_CONFLICT },
      );
      return toRole(await loadRole(pool, ctx, id), ctx);
    },

    async updateRole(req: UpdateRoleRequest, ctx: CallContext): Promise<Role> {
      const row = await loadRole(pool, ctx, req.id);
      requireAnywhere(ctx.principal, "ROLE_UPDATE", "updating roles");
      await commands.handle(
        streamId("role", row.id),
        roleDecider,
        {
          type: "UpdateRole",
          id: row.id,
          name: req.name,
          description: req.description,
          permissions: req.setPermissions ? req.permissions : undefined,
          now: clock.now(),
        },
        { ...actorMetadata(ctx), role_id: row.id },
        { conflicts: NAME_CONFLICT },
      );
      return toRole(await loadRole(pool, ctx, row.id), ctx);
    },

    async deleteRole(req: DeleteRoleRequest, ctx: CallContext): Promise<Done> {
      const row = await loadRole(pool, ctx, req.id);
      requireAnywhere(ctx.principal, "ROLE_DELETE", "deleting roles");
      await commands.handle(
        streamId("role", row.id),
        roleDecider,
        {
          build: async (_state, client) => {
            const bound = await tracedQuery<{ n: number }>(
              client,
              "role bindings of role",
              "select count(*)::int as n from role_bindings where role_id = $1",
              [row.id],
            );
            return { type: "DeleteRole" as const, id: row.id, bindingCount: bound.rows[0]!.n };
          },
        },
        { ...actorMetadata(ctx), role_id: row.id },
        { conflicts: BOUND_CONFLICT },
      );
      return {};
    },
  };
}
