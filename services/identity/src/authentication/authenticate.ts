import type { AccountRoleName } from "@argus/contracts";
import { DomainError, type CallContext } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import { AccountRole, KeyType, type Principal } from "@argus/proto/common/v1";
import type { AuthenticateRequest, AuthenticateResponse } from "@argus/proto/identity/v1";
import type { Pool } from "pg";
import { hashApiKey, sameHash } from "../shared/secretHash.ts";
import { subjectGrants } from "./subjectGrants.ts";

interface KeyRow {
  id: string;
  account_id: string;
  key_type: "USER" | "SERVICE";
  user_id: string | null;
  status: string;
  expired: boolean;
  account_role: AccountRoleName | null;
  is_developer: boolean | null;
  key_hash: Buffer;
  service_account_id: string | null;
  user_deleted: boolean;
  expires_at: Date | null;
  /** The end of a refreshed key's grace period, when its previous secret matched. */
  grace_until: Date | null;
}

const ROLE = {
  admin: AccountRole.ACCOUNT_ROLE_ADMIN,
  member: AccountRole.ACCOUNT_ROLE_MEMBER,
  // Argus has no UI: a UI-only member is authorized as a member (README "Roles and permissions").
  member_ui_only: AccountRole.ACCOUNT_ROLE_MEMBER,
  annotator: AccountRole.ACCOUNT_ROLE_ANNOTATOR,
} as const;

// last_used_at is kept to the minute, and this process skips the write entirely when it
// already wrote it this minute, so authentication stays one read on the hot path.
const LAST_USED_RESOLUTION_MS = 60_000;
const lastTouched = new Map<string, number>();

function touchLastUsed(pool: Pool, keyId: string, now = Date.now()): void {
  if (now - (lastTouched.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  if (lastTouched.size > 100_000) lastTouched.clear();
  lastTouched.set(keyId, now);
  void pool
    .query(
      "update api_keys set last_used_at = now() where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')",
      [keyId],
    )
    .catch(() => lastTouched.delete(keyId));
}

const unauthenticated = () =>
  new DomainError("authentication-required", "missing or invalid API key");

export function authenticateHandler(deps: { pool: Pool; pepper: string }) {
  return async function authenticate(
    req: AuthenticateRequest,
    _ctx: CallContext,
  ): Promise<AuthenticateResponse> {
    if (req.apiKey.length === 0 || req.apiKey.length > 512) throw unauthenticated();
    const hash = hashApiKey(req.apiKey, deps.pepper);
    const res = await tracedQuery<KeyRow>(
      deps.pool,
      "authenticate",
      `select k.id, k.account_id, k.key_type, k.user_id, k.status,
              (k.expires_at is not null and k.expires_at <= now()) as expired,
              -- A service account acts through its bindings alone, unless it is an ADMIN one.
              coalesce(u.account_role, case when sa.account_role = 'ADMIN' then 'admin' end)
                as account_role, u.is_developer,
              s.key_hash, k.service_account_id,
              (u.deleted_at is not null) as user_deleted, k.expires_at, s.grace_until
         from (select api_key_id, key_hash, null::timestamptz as grace_until
                 from api_key_secrets where key_hash = $1
               union all -- a refreshed key's previous secret, during its grace period
               select api_key_id, key_hash, valid_until from api_key_grace_secrets
                where key_hash = $1 and valid_until > now()) s
         join api_keys k on k.id = s.api_key_id
         left join users u on u.id = k.user_id
         left join service_accounts sa on sa.id = k.service_account_id`,
      [hash],
    );
    const row = res.rows[0];
    // The index lookup finds the row; the constant-time compare is what decides.
    if (!row || !sameHash(row.key_hash, hash) || row.status !== "ACTIVE" || row.expired)
      throw unauthenticated();
    if (row.key_type === "USER" && (!row.user_id || row.user_deleted)) throw unauthenticated();
    const subject =
      row.key_type === "USER"
        ? { type: "USER" as const, id: row.user_id ?? "" }
        : { type: "SERVICE_ACCOUNT" as const, id: row.service_account_id ?? "" };
    const grants = await subjectGrants(deps.pool, row.account_id, subject);
    touchLastUsed(deps.pool, row.id);
    const principal: Principal = {
      accountId: row.account_id,
      userId: row.user_id ?? "",
      serviceAccountId: row.service_account_id ?? "",
      apiKeyId: row.id,
      keyType: row.key_type === "USER" ? KeyType.KEY_TYPE_USER : KeyType.KEY_TYPE_SERVICE,
      accountRole: row.account_role ? ROLE[row.account_role] : AccountRole.ACCOUNT_ROLE_UNSPECIFIED,
      isDeveloper: row.is_developer ?? false,
      ...grants,
      issuedAtMs: 0n,
      keyExpiresAtMs: BigInt(row.expires_at?.getTime() ?? 0),
    };
    // A gateway caches the principal, but never past the moment this secret stops working.
    return { principal, keyExpiresAtMs: secretExpiry(row.expires_at, row.grace_until) };
  };
}

/** The earlier of the key's expiry and its grace period's end, in ms; 0 when neither is set. */
export function secretExpiry(expiresAt: Date | null, graceUntil: Date | null): bigint {
  const ends = [expiresAt, graceUntil].filter((d): d is Date => d !== null);
  return ends.length === 0 ? 0n : BigInt(Math.min(...ends.map((d) => d.getTime())));
}
