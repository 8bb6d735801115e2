import { tracedQuery, type Queryable } from "@argus/eventstore";
import { hashApiKey, randomSecret } from "./apiKeySecret.ts";

/**
 * An invitation's verification token: random, e-mailed to the invitee (delivery is outside
 * Argus), stored only as its HMAC under the pepper like API keys. Never in events, logs or
 * responses.
 */
export function newInvitationToken(): string {
  return randomSecret(32);
}

/** Writes (or, on resend, replaces) the user's token: the previous one stops working. */
export async function storeInvitationToken(
  client: Queryable,
  pepper: string,
  userId: string,
  raw: string,
  expiresAt: string,
): Promise<void> {
  await tracedQuery(
    client,
    "store invitation token",
    `insert into invitation_tokens (user_id, token_hash, expires_at) values ($1, $2, $3)
       on conflict (user_id) do update set token_hash = excluded.token_hash, expires_at = excluded.expires_at`,
    [userId, hashApiKey(raw, pepper), expiresAt],
  );
}

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
