import { notFound, uuidv7, type CallContext } from "@argus/platform";
import {
  tracedQuery,
  type CommandHandler,
  type CommandScope,
  type Queryable,
} from "@argus/eventstore";
import { streamId, type BindingResourceType } from "@argus/contracts";
import type { IdentityDeps } from "../deps.ts";
import { roleBindingDecider } from "./roleBindingDecider.ts";
import { bindingTargets, requireBindableRole } from "./roleBindingTargets.ts";
import { hold } from "../shared/holds.ts";
import {
  findMembership,
  membershipRole,
  predefinedRoleId,
  requireRoleFitsAccountRole,
} from "./membershipChecks.ts";
import { BINDING_CONFLICT, bindingMetadata } from "./roleBindingCommands.ts";

export interface Place {
  type: BindingResourceType;
  id: string;
}

/**
 * Binds (or rebinds) the user on the resource after `check`, in one transaction: one binding
 * per user and resource, so adding a user already bound changes the role. The binding's id.
 */
const bindUser = (
  { commands, clock }: Pick<IdentityDeps, "commands" | "clock">,
  ctx: CallContext,
  on: Place,
  userId: string,
  roleId: string,
  check: (scope: CommandScope) => Promise<void>,
): Promise<string> =>
  commands.transact(
    async (scope) => {
      await check(scope);
      const accountId = ctx.principal.accountId;
      const found = await findMembership(scope.client, accountId, on.type, on.id, userId);
      const id = found?.id ?? uuidv7();
      const target = { roleId, subjectType: "USER" as const, subjectId: userId };
      const now = clock.now();
      await scope.decide(
        streamId("role_binding", id),
        roleBindingDecider,
        {
          build: async (_state, client) =>
            found
              ? {
                  type: "UpdateRoleBinding" as const,
                  roleId,
                  roleFound: await hold(client, "role", roleId, accountId),
                  now,
                }
              : {
                  type: "CreateRoleBinding" as const,
                  id,
                  accountId,
                  ...target,
                  resourceType: on.type,
                  resourceId: on.id,
                  found: await bindingTargets(client, accountId, {
                    ...target,
                    resourceType: on.type,
                    resourceId: on.id,
                  }),
                  now,
                },
        },
        bindingMetadata(ctx, id, on.type, on.id),
      );
      return id;
    },
    { conflicts: BINDING_CONFLICT },
  );

/** A member as add_organization_user and add_space_user name one. */
interface NewMember {
  userId: string;
  roleName: string;
  customRoleId: string;
}

/**
 * Binds the user on an organization or a space with a predefined role by name (which must fit
 * the user's account role) or a custom one (which must be the account's); `more` adds the
 * resource's own rules, in the same transaction. The binding's id and its role as a membership
 * names it.
 */
export async function addMember(
  { pool, commands, clock }: Pick<IdentityDeps, "pool" | "commands" | "clock">,
  ctx: CallContext,
  on: Place & { type: "ORGANIZATION" | "SPACE" },
  req: NewMember,
  more: (client: Queryable, accountId: string) => Promise<void>,
) {
  const accountId = ctx.principal.accountId;
  // A custom role makes the user a member, as any role below ADMIN (README).
  const roleId = req.customRoleId || predefinedRoleId(req.roleName);
  const where = on.type === "ORGANIZATION" ? "organization" : "space";
  const id = await bindUser(
    { commands, clock },
    ctx,
    on,
    req.userId,
    roleId,
    async ({ client }) => {
      if (!req.customRoleId)
        await requireRoleFitsAccountRole(client, accountId, req.userId, req.roleName, where);
      else if (!(await hold(client, "role", roleId, accountId))) throw notFound("role");
      else await requireBindableRole(client, ctx.principal, roleId);
      await more(client, accountId);
    },
  );
  return { id, ...(await membershipRole(pool, roleId)) };
}

/**
 * Removes the user's binding on the resource (404 when there is none). Removed from an
 * organization, the user leaves its spaces too (the public API's membership cascade), in the
 * same transaction: no moment where the organization is gone and a space still admits them.
 * The organization's binding goes first, and its spaces' are read after: an add_space_user
 * holding that binding (requireOrganizationMember) has committed by then and its binding is
 * found, or it finds none and refuses. Each binding is locked as every binding command locks
 * it (its event appended, then its row); a user's deletion, which removes all their bindings
 * in one statement, may still meet this in a deadlock, which Postgres breaks and the command
 * handler retries.
 */
export const unbindUser = (
  commands: CommandHandler,
  ctx: CallContext,
  on: Place,
  userId: string,
): Promise<void> =>
  commands.transact(async (scope) => {
    const accountId = ctx.principal.accountId;
    const found = await findMembership(scope.client, accountId, on.type, on.id, userId);
    if (!found) throw notFound("membership");
    const unbind = (b: { id: string; type: BindingResourceType; resourceId: string }) =>
      scope.decide(
        streamId("role_binding", b.id),
        roleBindingDecider,
        { type: "DeleteRoleBinding" },
        bindingMetadata(ctx, b.id, b.type, b.resourceId),
      );
    await unbind({ id: found.id, type: on.type, resourceId: on.id });
    if (on.type !== "ORGANIZATION") return;
    const spaces = await tracedQuery<{ id: string; resource_id: string }>(
      scope.client,
      "find space memberships of organization",
      `select b.id, b.resource_id from role_bindings b
         join spaces s on s.id = b.resource_id and s.organization_id = $3
        where b.account_id = $1 and b.subject_type = 'USER' and b.subject_id = $2
          and b.resource_type = 'SPACE'
        order by b.id`,
      [accountId, userId, on.id],
    );
    for (const b of spaces.rows)
      await unbind({ id: b.id, type: "SPACE", resourceId: b.resource_id });
  });
