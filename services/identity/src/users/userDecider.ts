import type { Decider } from "@argus/eventstore";
import type { UserEvent } from "@argus/contracts";
import { DomainError, unreachable, type Lifecycle } from "@argus/platform";
import {
  INVITATION_TTL_MS,
  PASSWORD_RESET_TTL_MS,
  newUserEvent,
  updatedUser,
  userStatus,
  type InviteMode,
  type InviteUser,
  type UpdateUser,
} from "./userRules.ts";

export type UserState = Lifecycle<{
  id: string;
  email: string;
  name: string;
  isDeveloper: boolean;
  /** Whether the invitation was accepted; its validity is its token's (invitation_tokens). */
  invitation: "INVITED" | "ACTIVE";
}>;

// InviteUser and UpdateUser are userRules.ts's, whose rules make their events.
export type UserCommand =
  | InviteUser
  /**
   * create_user for an e-mail that is already a user's (the e-mail is the idempotency key);
   * `tokenExpiresAt`: the expiry of the user's invitation token, null when there is none.
   */
  | {
      type: "InviteAgain";
      inviteMode: InviteMode;
      tokenExpiresAt: Date | null;
      now: Date;
    }
  | UpdateUser
  | { type: "DeleteUser"; callerUserId: string; now: Date }
  | { type: "ResendInvitation"; now: Date }
  /** `hasPassword`: whether the user signs in with a password (read in the transaction). */
  | { type: "ResetPassword"; hasPassword: boolean; now: Date }
  /** `tokenExpiresAt`: the expiry of the token the invitee presented (found by its hash). */
  | { type: "AcceptInvitation"; tokenExpiresAt: Date; now: Date };

const gone = () => new DomainError("resource-not-found", "user not found");

const resent = (id: string, now: Date): UserEvent => ({
  type: "UserInvitationResent",
  data: {
    id,
    invitation_expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
  },
});

function decide(command: UserCommand, state: UserState): UserEvent[] {
  if (command.type === "InviteUser") {
    if (state.status !== "none") throw new DomainError("resource-conflict", "user already exists");
    return [newUserEvent(command)];
  }
  // The public API: blocking a user who is blocked already is a no-op.
  if (state.status === "deleted" && command.type === "DeleteUser") return [];
  if (state.status !== "live") throw gone();
  switch (command.type) {
    case "InviteAgain": {
      // A still valid invitation is returned as it is; an expired one is renewed.
      // Only an e-mail link renews an invitation; the other modes add a user that is new.
      if (state.invitation === "ACTIVE" || command.inviteMode !== "EMAIL_LINK")
        throw new DomainError(
          "resource-conflict",
          `a user with e-mail ${JSON.stringify(state.email)} already exists`,
        );
      const valid = userStatus("INVITED", command.tokenExpiresAt, command.now) === "INVITED";
      return valid ? [] : [resent(state.id, command.now)];
    }
    case "UpdateUser":
      return updatedUser(command, state);
    case "DeleteUser":
      if (command.callerUserId === state.id)
        throw new DomainError("invalid-request", "a user cannot delete themselves");
      return [
        { type: "UserDeleted", data: { id: state.id, deleted_at: command.now.toISOString() } },
      ];
    case "ResetPassword":
      if (!command.hasPassword)
        throw new DomainError(
          "invalid-request",
          "the user does not sign in with a password (SSO, or the account is not verified yet)",
        );
      return [
        {
          type: "UserPasswordResetRequested",
          data: {
            id: state.id,
            reset_expires_at: new Date(command.now.getTime() + PASSWORD_RESET_TTL_MS).toISOString(),
            requested_at: command.now.toISOString(),
          },
        },
      ];
    case "ResendInvitation":
      if (state.invitation === "ACTIVE")
        throw new DomainError("invalid-request", "the user has already accepted the invitation");
      return [resent(state.id, command.now)];
    case "AcceptInvitation":
      if (state.invitation === "ACTIVE")
        throw new DomainError("resource-conflict", "the invitation has already been accepted");
      // The token is valid strictly before its expiry: at the expiry instant it has lapsed.
      if (command.tokenExpiresAt.getTime() <= command.now.getTime())
        throw new DomainError(
          "unprocessable-entity",
          "the invitation has expired; ask an account admin or a holder of USER_CREATE to resend it",
        );
      return [
        {
          type: "UserInvitationAccepted",
          data: { id: state.id, accepted_at: command.now.toISOString() },
        },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(state: UserState, event: UserEvent): UserState {
  if (event.type === "UserCreated") {
    const d = event.data;
    return {
      status: "live",
      id: d.id,
      email: d.email,
      name: d.name,
      isDeveloper: d.is_developer,
      invitation: d.status,
    };
  }
  if (event.type === "UserDeleted") return { status: "deleted" };
  if (state.status !== "live") return state;
  switch (event.type) {
    case "UserUpdated":
      return {
        ...state,
        name: event.data.name ?? state.name,
        isDeveloper: event.data.is_developer ?? state.isDeveloper,
      };
    case "UserInvitationResent":
    case "UserPasswordResetRequested":
      return state;
    case "UserInvitationAccepted":
      return { ...state, invitation: "ACTIVE" };
    default:
      return unreachable(event);
  }
}

/** A user: invited (or added active), updated, re-invited and accepted while live, deleted once. */
export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
