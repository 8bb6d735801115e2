import { notFound, uuidv7, type CallContext } from "@argus/platform";
import type { CommandHandler, CommandScope } from "@argus/eventstore";
import { streamId, type BindingResourceType } from "@argus/contracts";
import type { IdentityDeps } from "../deps.ts";
import { roleBindingDecider } from "./roleBindingDecider.ts";
import { bindingTargets } from "./roleBindingTargets.ts";
import { hold } from "../shared/holds.ts";
import { findMembership } from "./membershipChecks.ts";
import { BINDING_CONFLICT, bindingMetadata } from "./roleBindingCommands.ts";

export interface Place {
  type: BindingResourceType;
  id: string;
}

/**
 * Binds (or rebinds) the user on the resource after `check`, in one transaction: one binding
 * per user and resource, so adding a user already bound changes the role. The binding's id.
 */
export const bindUser = (
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

/** Removes the user's binding on the resource (404 when there is none). */
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
    await scope.decide(
      streamId("role_binding", found.id),
      roleBindingDecider,
      { type: "DeleteRoleBinding" },
      bindingMetadata(ctx, found.id, on.type, on.id),
    );
  });
