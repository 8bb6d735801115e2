import { DomainError } from "@argus/platform";

export const USER_NAME_MAX = 255;
/** How long an invitation's verification token stays valid. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export type AccountRoleName = "admin" | "member" | "annotator";
const ACCOUNT_ROLES: readonly string[] = ["admin", "member", "annotator"];

/** What a decision about a user needs to know of it (from the projection). */
export interface UserState {
  id: string;
  name: string;
  isDeveloper: boolean;
  status: string;
  invitationExpiresAt: Date | null;
}

export interface InviteUser {
  type: "InviteUser";
  id: string;
  accountId: string;
  name: string;
  email: string;
  accountRole: AccountRoleName;
  isDeveloper: boolean | undefined;
  /** NONE: active at once, no invitation (SSO accounts); EMAIL_LINK: an expiring invitation. */
  inviteMode: "NONE" | "EMAIL_LINK";
  callerIsAdmin: boolean;
  now: Date;
}

export interface UpdateUser {
  type: "UpdateUser";
  name: string | undefined;
  isDeveloper: boolean | undefined;
  callerIsAdmin: boolean;
  callerMayUpdateUsers: boolean;
  now: Date;
}

export interface DeleteUser {
  type: "DeleteUser";
  callerUserId: string;
  now: Date;
}

export interface ResendInvitation {
  type: "ResendInvitation";
  now: Date;
}

export interface AcceptInvitation {
  type: "AcceptInvitation";
  /** Expiry of the token the invitee presented (found by its hash). */
  tokenExpiresAt: Date;
  now: Date;
}

export type UserEvent =
  | {
      type: "UserCreated";
      data: {
        id: string;
        account_id: string;
        email: string;
        name: string;
        account_role: AccountRoleName;
        is_developer: boolean;
        status: "INVITED" | "ACTIVE";
        invitation_expires_at: string | null;
        created_at: string;
      };
    }
  | {
      type: "UserUpdated";
      data: { id: string; name?: string; is_developer?: boolean; updated_at: string };
    }
  | { type: "UserDeleted"; data: { id: string; deleted_at: string } }
  | { type: "UserInvitationResent"; data: { id: string; invitation_expires_at: string } }
  | { type: "UserInvitationAccepted"; data: { id: string; accepted_at: string } };

/** Trimmed name, 1 to 255 characters (spec endpoint 11): whitespace-only is 400. */
export function normalizeUserName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new DomainError("invalid-request", "name must not be blank");
  if ([...trimmed].length > USER_NAME_MAX)
    throw new DomainError("invalid-request", `name must be at most ${USER_NAME_MAX} characters`);
  return trimmed;
}

/** INVITED only while the verification token is valid; EXPIRED is computed, never stored. */
export function userStatus(
  stored: string,
  invitationExpiresAt: Date | null,
  now: Date,
): "ACTIVE" | "INVITED" | "EXPIRED" {
  if (stored === "ACTIVE") return "ACTIVE";
  if (invitationExpiresAt && invitationExpiresAt > now) return "INVITED";
  return "EXPIRED";
}

export function decideInviteUser(c: InviteUser): UserEvent[] {
  if (!c.callerIsAdmin)
    throw new DomainError("access-forbidden", "inviting users requires the account admin role");
  // As the public API: CUSTOM account roles are reserved, not yet supported (422).
  if (!ACCOUNT_ROLES.includes(c.accountRole))
    throw new DomainError(
      "unprocessable-entity",
      "custom account roles (role type CUSTOM) are not yet supported; use ADMIN, MEMBER or ANNOTATOR",
    );
  const name = normalizeUserName(c.name);
  return [
    {
      type: "UserCreated",
      data: {
        id: c.id,
        account_id: c.accountId,
        email: c.email,
        name,
        account_role: c.accountRole,
        // The public API's default: developers unless annotator.
        is_developer: c.isDeveloper ?? c.accountRole !== "annotator",
        status: c.inviteMode === "NONE" ? "ACTIVE" : "INVITED",
        invitation_expires_at:
          c.inviteMode === "NONE"
            ? null
            : new Date(c.now.getTime() + INVITATION_TTL_MS).toISOString(),
        created_at: c.now.toISOString(),
      },
    },
  ];
}

/** Spec endpoint 11. Returns no events when nothing changes (same values are a no-op). */
export function decideUpdateUser(c: UpdateUser, state: UserState): UserEvent[] {
  if (c.name === undefined && c.isDeveloper === undefined)
    throw new DomainError("invalid-request", "at least one of name and is_developer is required");
  if (c.isDeveloper !== undefined && !c.callerIsAdmin)
    throw new DomainError(
      "access-forbidden",
      "changing is_developer requires the account admin role",
    );
  if (c.name !== undefined && !c.callerIsAdmin && !c.callerMayUpdateUsers)
    throw new DomainError("access-forbidden", "changing a user's name requires USER_UPDATE");
  const name = c.name === undefined ? undefined : normalizeUserName(c.name);
  const data: { id: string; name?: string; is_developer?: boolean; updated_at: string } = {
    id: state.id,
    updated_at: c.now.toISOString(),
  };
  if (name !== undefined && name !== state.name) data.name = name;
  if (c.isDeveloper !== undefined && c.isDeveloper !== state.isDeveloper)
    data.is_developer = c.isDeveloper;
  if (data.name === undefined && data.is_developer === undefined) return [];
  return [{ type: "UserUpdated", data }];
}

export function decideDeleteUser(c: DeleteUser, state: UserState): UserEvent[] {
  if (c.callerUserId === state.id)
    throw new DomainError("invalid-request", "a user cannot delete themselves");
  return [{ type: "UserDeleted", data: { id: state.id, deleted_at: c.now.toISOString() } }];
}

export function decideResendInvitation(c: ResendInvitation, state: UserState): UserEvent[] {
  if (state.status === "ACTIVE")
    throw new DomainError("invalid-request", "the user has already accepted the invitation");
  return [
    {
      type: "UserInvitationResent",
      data: {
        id: state.id,
        invitation_expires_at: new Date(c.now.getTime() + INVITATION_TTL_MS).toISOString(),
      },
    },
  ];
}

/** The token is valid strictly before its expiry: at the expiry instant it has lapsed. */
export function decideAcceptInvitation(c: AcceptInvitation, state: UserState): UserEvent[] {
  if (state.status === "ACTIVE")
    throw new DomainError("resource-conflict", "the invitation has already been accepted");
  if (c.tokenExpiresAt.getTime() <= c.now.getTime())
    throw new DomainError(
      "unprocessable-entity",
      "the invitation has expired; ask an admin to resend it",
    );
  return [
    { type: "UserInvitationAccepted", data: { id: state.id, accepted_at: c.now.toISOString() } },
  ];
}

/** Deleting a user revokes each of their active USER keys, each on its key's own stream. */
export function revokeKeysOfDeletedUser(
  keyIds: readonly string[],
  now: Date,
): {
  streamId: string;
  event: { type: "ApiKeyRevoked"; data: { id: string; revoked_at: string } };
}[] {
  return keyIds.map((id) => ({
    streamId: `apikey-${id}`,
    event: { type: "ApiKeyRevoked", data: { id, revoked_at: now.toISOString() } },
  }));
}
