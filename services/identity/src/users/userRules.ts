import type { AccountRoleName, UserCreated, UserUpdated } from "@argus/contracts";
import { DomainError } from "@argus/platform";

const USER_NAME_MAX = 255;
/** How long an invitation's verification token stays valid. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a password-reset token stays valid (the public API's 30-minute link). */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;

export const INVITE_MODES = ["NONE", "EMAIL_LINK", "TEMPORARY_PASSWORD"] as const;
export type InviteMode = (typeof INVITE_MODES)[number];

/** The user decider's command that invites (or adds) a user: `newUserEvent` makes its event. */
export interface InviteUser {
  type: "InviteUser";
  id: string;
  accountId: string;
  name: string;
  email: string;
  accountRole: AccountRoleName;
  isDeveloper: boolean | undefined;
  /**
   * NONE: active at once, no invitation (SSO accounts); EMAIL_LINK: an expiring invitation;
   * TEMPORARY_PASSWORD: active at once, with a generated password (stored by the command).
   */
  inviteMode: InviteMode;
  callerIsAdmin: boolean;
  /** An account member, or holds USER_CREATE (account admins do). */
  callerMayInvite: boolean;
  now: Date;
}

/** The user decider's command that updates a user: `updatedUser` makes its event. */
export interface UpdateUser {
  type: "UpdateUser";
  name: string | undefined;
  isDeveloper: boolean | undefined;
  callerIsAdmin: boolean;
  callerMayUpdateUsers: boolean;
  now: Date;
}

const ACCOUNT_ROLES: readonly string[] = ["admin", "member", "member_ui_only", "annotator"];

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

/**
 * Only admins make admins (the public API's rule); in Argus nobody else invites, renews an
 * invitation for, or deletes an admin either. Anything less would hand out the admin role (a
 * TEMPORARY_PASSWORD invitee's password is answered to the caller) or take it away.
 */
export function requireAdminFor(accountRole: string, callerIsAdmin: boolean, what: string): void {
  if (accountRole === "admin" && !callerIsAdmin)
    throw new DomainError("access-forbidden", `${what} requires the account admin role`);
}

export const inviteForbidden = () =>
  new DomainError(
    "access-forbidden",
    "inviting users requires the account admin or member role, or USER_CREATE",
  );

export function newUserEvent(c: InviteUser): UserCreated {
  if (!c.callerIsAdmin && !c.callerMayInvite) throw inviteForbidden();
  requireAdminFor(c.accountRole, c.callerIsAdmin, "adding an account admin");
  // As update_user: the developer flag is the admin role's to set.
  if (c.isDeveloper !== undefined && !c.callerIsAdmin)
    throw new DomainError(
      "access-forbidden",
      "setting is_developer requires the account admin role",
    );
  // As the public API: CUSTOM account roles are reserved, not yet supported (422).
  if (!ACCOUNT_ROLES.includes(c.accountRole))
    throw new DomainError(
      "unprocessable-entity",
      "custom account roles (role type CUSTOM) are not yet supported; use ADMIN, MEMBER, MEMBER_UI_ONLY or ANNOTATOR",
    );
  // NONE and TEMPORARY_PASSWORD add the user as ACTIVE at once; EMAIL_LINK invites.
  const invited = c.inviteMode === "EMAIL_LINK";
  return {
    type: "UserCreated",
    data: {
      id: c.id,
      account_id: c.accountId,
      email: c.email,
      name: normalizeUserName(c.name),
      account_role: c.accountRole,
      // The public API's default: developers unless annotator (or UI-only member).
      is_developer: c.isDeveloper ?? (c.accountRole === "admin" || c.accountRole === "member"),
      status: invited ? "INVITED" : "ACTIVE",
      invitation_expires_at: invited
        ? new Date(c.now.getTime() + INVITATION_TTL_MS).toISOString()
        : null,
      created_at: c.now.toISOString(),
    },
  };
}

/** Spec endpoint 11: only what changes; the same values are a no-op (no event). */
export function updatedUser(
  c: UpdateUser,
  user: { id: string; name: string; isDeveloper: boolean },
): UserUpdated[] {
  if (c.name === undefined && c.isDeveloper === undefined)
    throw new DomainError("invalid-request", "at least one of name and is_developer is required");
  // is_developer is for the admin role itself, not for a permission (spec endpoint 11).
  if (c.isDeveloper !== undefined && !c.callerIsAdmin)
    throw new DomainError(
      "access-forbidden",
      "changing is_developer requires the account admin role",
    );
  if (c.name !== undefined && !c.callerIsAdmin && !c.callerMayUpdateUsers)
    throw new DomainError("access-forbidden", "changing a user's name requires USER_UPDATE");
  const data: UserUpdated["data"] = { id: user.id, updated_at: c.now.toISOString() };
  const name = c.name === undefined ? undefined : normalizeUserName(c.name);
  if (name !== undefined && name !== user.name) data.name = name;
  if (c.isDeveloper !== undefined && c.isDeveloper !== user.isDeveloper)
    data.is_developer = c.isDeveloper;
  if (data.name === undefined && data.is_developer === undefined) return [];
  return [{ type: "UserUpdated", data }];
}
