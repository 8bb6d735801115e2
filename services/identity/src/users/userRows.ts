import type { AccountRoleName } from "@argus/contracts";
import type { User } from "@argus/proto/identity/v1";
import { userStatus } from "./userRules.ts";

export interface UserRow {
  id: string;
  name: string;
  email: string;
  created_at: Date;
  status: string;
  account_role: AccountRoleName;
  is_developer: boolean;
  invitation_expires_at: Date | null;
}

// The invitation's expiry is its token's: no token (accepted, or never issued) is no invitation.
export const USER_COLUMNS =
  "u.id, u.name, u.email, u.created_at, u.status, u.account_role, u.is_developer, t.expires_at as invitation_expires_at";
export const USER_FROM = "users u left join invitation_tokens t on t.user_id = u.id";

export const toUser = (r: UserRow, now: Date): User => ({
  id: r.id,
  name: r.name,
  email: r.email,
  createdAt: r.created_at.toISOString(),
  status: userStatus(r.status, r.invitation_expires_at, now),
  accountRole: r.account_role,
  isDeveloper: r.is_developer,
});
