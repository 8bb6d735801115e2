import { tracedQuery, type Queryable } from "@argus/eventstore";
import { hashApiKey } from "../shared/secretHash.ts";
import { newInvitationToken } from "../shared/newSecrets.ts";

/**
 * Writes (or replaces) a user's one-time token in `table`, in the transaction of the event that
 * issues it: the previous one stops working. The raw token would be e-mailed (delivery is
 * outside Argus); only its HMAC under the pepper is stored.
 */
export async function issueUserToken(
  client: Queryable,
  table: "invitation_tokens" | "password_reset_tokens",
  pepper: string,
  userId: string,
  expiresAt: string,
): Promise<void> {
  await tracedQuery(
    client,
    `store ${table === "invitation_tokens" ? "invitation" : "password reset"} token`,
    `insert into ${table} (user_id, token_hash, expires_at) values ($1, $2, $3)
       on conflict (user_id) do update set token_hash = excluded.token_hash, expires_at = excluded.expires_at`,
    [userId, hashApiKey(newInvitationToken(), pepper), expiresAt],
  );
}

/** The invitation's token, in the transaction of the event that invites (or resends). */
export const issueInvitationToken = (
  client: Queryable,
  pepper: string,
  userId: string,
  expiresAt: string,
) => issueUserToken(client, "invitation_tokens", pepper, userId, expiresAt);

export interface InvitationRow {
  user_id: string;
  account_id: string;
  expires_at: Date;
}

/** The invitation a raw token belongs to (lookup by its hash; row-locked for acceptance). */
export async function findInvitation(
  client: Queryable,
  pepper: string,
  raw: string,
): Promise<InvitationRow | undefined> {
  const res = await tracedQuery<InvitationRow>(
    client,
    "find invitation",
    `select t.user_id, u.account_id, t.expires_at
       from invitation_tokens t join users u on u.id = t.user_id
      where t.token_hash = $1 and u.deleted_at is null
      for update of t`,
    [hashApiKey(raw, pepper)],
  );
  return res.rows[0];
}

/** The expiry of the user's invitation token (row-locked), or null when there is none. */
export async function invitationExpiry(client: Queryable, userId: string): Promise<Date | null> {
  const res = await tracedQuery<{ expires_at: Date }>(
    client,
    "invitation expiry",
    "select expires_at from invitation_tokens where user_id = $1 for update",
    [userId],
  );
  return res.rows[0]?.expires_at ?? null;
}
