import {
  DomainError,
  actorMetadata,
  holdsAnywhere,
  isAccountAdmin,
  notFound,
  requireAnywhere,
  type CallContext,
} from "@argus/platform";
import type { CommandHandler, CommandInput, EventMetadata } from "@argus/eventstore";
import type {
  AcceptInvitationRequest,
  Done,
  ResendUserInvitationRequest,
  ResetUserPasswordRequest,
  User,
} from "@argus/proto/identity/v1";
import { streamId } from "@argus/contracts";
import { userDecider, type UserCommand, type UserState } from "./userDecider.ts";
import { toUser } from "./userRows.ts";
import { requireAdminFor } from "./userRules.ts";
import { findUser, loadReadableUser } from "./userQueries.ts";
import type { IdentityDeps } from "../deps.ts";
import { findInvitation, issueInvitationToken } from "./invitationTokens.ts";
import { hasPassword, issuePasswordResetToken } from "./userPasswords.ts";

/**
 * Renews the user's invitation when the decider says so (resend, or create_user again after
 * it expired): a new verification token with a new expiry, in the event's transaction.
 * Whether it was renewed.
 */
export async function renewInvitation(
  commands: CommandHandler,
  pepper: string,
  userId: string,
  command: CommandInput<UserState, UserCommand>,
  metadata: EventMetadata,
): Promise<boolean> {
  return commands.transact(async (scope) => {
    const { events } = await scope.decide(streamId("user", userId), userDecider, command, metadata);
    for (const e of events)
      if (e.type === "UserInvitationResent")
        await issueInvitationToken(scope.client, pepper, userId, e.data.invitation_expires_at);
    return events.length > 0;
  });
}

export function invitationCommands(
  deps: Pick<IdentityDeps, "pool" | "commands" | "pepper" | "clock">,
) {
  const { pool, commands, pepper, clock } = deps;
  return {
    async resendUserInvitation(req: ResendUserInvitationRequest, ctx: CallContext): Promise<Done> {
      const row = await loadReadableUser(pool, ctx, req.id);
      requireAnywhere(ctx.principal, "USER_CREATE", "resending invitations");
      requireAdminFor(
        row.account_role,
        isAccountAdmin(ctx.principal),
        "resending an account admin's invitation",
      );
      await renewInvitation(
        commands,
        pepper,
        row.id,
        { type: "ResendInvitation", now: clock.now() },
        { ...actorMetadata(ctx), user_id: row.id },
      );
      return {};
    },

    /**
     * A password-reset token for a user who signs in with a password (account admins, or
     * USER_UPDATE): 400 for one who does not (SSO, or not verified yet).
     */
    async resetUserPassword(req: ResetUserPasswordRequest, ctx: CallContext): Promise<Done> {
      const row = await loadReadableUser(pool, ctx, req.id);
      const p = ctx.principal;
      if (!isAccountAdmin(p) && !holdsAnywhere(p, "USER_UPDATE"))
        throw new DomainError(
          "access-forbidden",
          "resetting a user's password requires the account admin role or USER_UPDATE",
        );
      const now = clock.now();
      await commands.transact(async (scope) => {
        const { events } = await scope.decide(
          streamId("user", row.id),
          userDecider,
          {
            build: async (_state, client) => ({
              type: "ResetPassword" as const,
              hasPassword: await hasPassword(client, row.id),
              now,
            }),
          },
          { ...actorMetadata(ctx), user_id: row.id },
        );
        for (const e of events)
          if (e.type === "UserPasswordResetRequested")
            await issuePasswordResetToken(scope.client, pepper, row.id, e.data.reset_expires_at);
      });
      return {};
    },

    /** The caller is the gateway (nobody yet): the token alone identifies the invitee. */
    async acceptInvitation(req: AcceptInvitationRequest, ctx: CallContext): Promise<User> {
      if (!req.token) throw new DomainError("invalid-request", "token is required");
      const now = clock.now();
      const invitee = await commands.transact(async (scope) => {
        // Row-locked: a resend replacing the token meanwhile makes this one unknown (404).
        const inv = await findInvitation(scope.client, pepper, req.token);
        if (!inv) throw notFound("invitation");
        await scope.decide(
          streamId("user", inv.user_id),
          userDecider,
          { type: "AcceptInvitation", tokenExpiresAt: inv.expires_at, now },
          {
            ...actorMetadata(ctx),
            account_id: inv.account_id,
            actor_user_id: inv.user_id,
            user_id: inv.user_id,
          },
        );
        return inv;
      });
      return toUser((await findUser(pool, invitee.account_id, invitee.user_id))!, now);
    },
  };
}
