import {
  DomainError,
  actorMetadata,
  holdsAnywhere,
  isAccountAdmin,
  isMember,
  requireAnywhere,
  uuidv7,
  type CallContext,
  type Principal,
  withholdReply,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type {
  CreateUserRequest,
  CreateUserResponse,
  DeleteUserRequest,
  Done,
  UpdateUserRequest,
  User,
} from "@argus/proto/identity/v1";
import { streamId, type AccountRoleName } from "@argus/contracts";
import { apiKeyDecider } from "../apiKeys/apiKeyDecider.ts";
import { userDecider } from "./userDecider.ts";
import { INVITE_MODES, inviteForbidden, requireAdminFor, type InviteMode } from "./userRules.ts";
import { toUser } from "./userRows.ts";
import { findUser, findUserByEmail, loadReadableUser } from "./userQueries.ts";
import type { IdentityDeps } from "../deps.ts";
import { dataOf } from "../shared/decided.ts";
import { invitationExpiry, issueInvitationToken } from "./invitationTokens.ts";
import { newTemporaryPassword } from "../shared/newSecrets.ts";
import { storeTemporaryPassword } from "./userPasswords.ts";
import { renewInvitation } from "./invitationCommands.ts";

/**
 * Who may invite: account admins and member users (the public API's rule), and holders of
 * USER_CREATE through a custom role (Argus's, as for resend); not annotators, nor service keys
 * but through their bindings. Only admins add or re-invite admins (`requireAdminFor`).
 */
const mayInvite = (p: Principal) => isMember(p) || holdsAnywhere(p, "USER_CREATE");

export function userCommands(deps: Pick<IdentityDeps, "pool" | "commands" | "pepper" | "clock">) {
  const { pool, commands, pepper, clock } = deps;
  return {
    /**
     * As the public API: the e-mail is the idempotency key of an invitation. A still valid
     * invitation is returned as it is (200); an expired one is renewed (201); an active member
     * is a conflict. With invite_mode NONE the user is active at once.
     */
    async createUser(req: CreateUserRequest, ctx: CallContext): Promise<CreateUserResponse> {
      const p = ctx.principal;
      const now = clock.now();
      const inviteMode: InviteMode = (INVITE_MODES as readonly string[]).includes(req.inviteMode)
        ? (req.inviteMode as InviteMode)
        : "EMAIL_LINK";
      const existing = await findUserByEmail(pool, p.accountId, req.email);
      // The public API: a deleted user is blocked, a terminal state; its e-mail is not invited
      // again.
      if (!existing && (await findUserByEmail(pool, p.accountId, req.email, { deleted: true })))
        throw new DomainError(
          "resource-conflict",
          `the user with e-mail ${JSON.stringify(req.email)} was deleted and cannot be invited again`,
        );
      if (existing) {
        if (!mayInvite(p)) throw inviteForbidden();
        requireAdminFor(req.accountRole, isAccountAdmin(p), "adding an account admin");
        requireAdminFor(
          existing.account_role,
          isAccountAdmin(p),
          "inviting an account admin again",
        );
        const created = await renewInvitation(
          commands,
          pepper,
          existing.id,
          {
            // The invitation's validity is its token's, read (and locked) after the stream.
            build: async (_state, client) => ({
              type: "InviteAgain" as const,
              inviteMode,
              tokenExpiresAt: await invitationExpiry(client, existing.id),
              now,
            }),
          },
          { ...actorMetadata(ctx), user_id: existing.id },
        );
        return {
          user: toUser((await findUser(pool, p.accountId, existing.id))!, now),
          created,
          inviteMode,
        };
      }
      const id = uuidv7();
      // Generated before the transaction, so a retried attempt stores the one answered.
      const temporaryPassword =
        inviteMode === "TEMPORARY_PASSWORD" ? newTemporaryPassword() : undefined;
      // The password is answered once: no copy of the answer is kept for a retry.
      if (temporaryPassword !== undefined) withholdReply(ctx);
      await commands.transact(
        async (scope) => {
          const { events } = await scope.decide(
            streamId("user", id),
            userDecider,
            {
              type: "InviteUser",
              id,
              accountId: p.accountId,
              name: req.name,
              email: req.email,
              accountRole: req.accountRole as AccountRoleName,
              isDeveloper: req.isDeveloper,
              inviteMode,
              callerIsAdmin: isAccountAdmin(p),
              callerMayInvite: mayInvite(p),
              now,
            },
            { ...actorMetadata(ctx), user_id: id },
          );
          const expiresAt = dataOf(events, "UserCreated").invitation_expires_at;
          if (expiresAt) await issueInvitationToken(scope.client, pepper, id, expiresAt);
          if (temporaryPassword !== undefined)
            await storeTemporaryPassword(scope.client, pepper, id, temporaryPassword, now);
        },
        {
          conflicts: {
            users_email_per_account: `a user with e-mail ${JSON.stringify(req.email)} already exists`,
          },
        },
      );
      return {
        user: toUser((await findUser(pool, p.accountId, id))!, now),
        created: true,
        inviteMode,
        ...(temporaryPassword === undefined ? {} : { temporaryPassword }),
      };
    },

    async updateUser(req: UpdateUserRequest, ctx: CallContext): Promise<User> {
      const row = await loadReadableUser(pool, ctx, req.id);
      const now = clock.now();
      await commands.handle(
        streamId("user", row.id),
        userDecider,
        {
          type: "UpdateUser",
          name: req.name,
          isDeveloper: req.isDeveloper,
          callerIsAdmin: isAccountAdmin(ctx.principal),
          callerMayUpdateUsers: holdsAnywhere(ctx.principal, "USER_UPDATE"),
          now,
        },
        { ...actorMetadata(ctx), user_id: row.id },
      );
      return toUser(await loadReadableUser(pool, ctx, req.id), now);
    },

    /**
     * The user's keys are revoked as events in the deletion's transaction, so no listing or
     * consumer ever sees an ACTIVE key of a deleted user. Deleting blocks the user for good:
     * deleting a deleted user again changes nothing (the public API's 204).
     */
    async deleteUser(req: DeleteUserRequest, ctx: CallContext): Promise<Done> {
      const row = await loadReadableUser(pool, ctx, req.id, { deleted: true });
      requireAnywhere(ctx.principal, "USER_DELETE", "deleting users");
      requireAdminFor(row.account_role, isAccountAdmin(ctx.principal), "deleting an account admin");
      const now = clock.now();
      const metadata = { ...actorMetadata(ctx), user_id: row.id };
      await commands.transact(async (scope) => {
        const deletion = { type: "DeleteUser" as const, callerUserId: ctx.principal.userId, now };
        await scope.decide(streamId("user", row.id), userDecider, deletion, metadata);
        // UserDeleted's projection holds the user's row now: a key being created for the user
        // either committed before (and is listed) or waits and then finds its user deleted.
        const keys = await tracedQuery<{ id: string }>(
          scope.client,
          "active keys of user",
          `select id from api_keys
            where user_id = $1 and key_type = 'USER' and status = 'ACTIVE' order by id`,
          [row.id],
        );
        for (const k of keys.rows)
          await scope.decide(
            streamId("api_key", k.id),
            apiKeyDecider,
            { type: "RevokeKey", now },
            metadata,
          );
      });
      return {};
    },
  };
}
