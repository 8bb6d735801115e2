import { tracedQuery, type Queryable } from "@argus/eventstore";
import { hashApiKey } from "../shared/secretHash.ts";
import { issueUserToken } from "./invitationTokens.ts";

/**
 * Stores a user's temporary password (create_user with invite_mode TEMPORARY_PASSWORD) in the
 * transaction of the event that creates the user: only its HMAC under the pepper, like API
 * keys. The raw password is answered once and is never in an event, a log or a later answer.
 */
export async function storeTemporaryPassword(
  client: Queryable,
  pepper: string,
  userId: string,
  raw: string,
  now: Date,
): Promise<void> {
  await tracedQuery(
    client,
    "store temporary password",
    `insert into user_passwords (user_id, password_hash, must_change, set_at) values ($1, $2, true, $3)
       on conflict (user_id) do update
         set password_hash = excluded.password_hash, must_change = true, set_at = excluded.set_at`,
    [userId, hashApiKey(raw, pepper), now],
  );
}

/** Whether the user signs in with a password (row-locked, in the command's transaction). */
export async function hasPassword(client: Queryable, userId: string): Promise<boolean> {
  const res = await tracedQuery(
    client,
    "find password",
    "select 1 from user_passwords where user_id = $1 for update",
    [userId],
  );
  return res.rows.length > 0;
}

/** The user's password-reset token, in the transaction of the event that requests it. */
export const issuePasswordResetToken = (
  client: Queryable,
  pepper: string,
  userId: string,
  expiresAt: string,
) => issueUserToken(client, "password_reset_tokens", pepper, userId, expiresAt);
