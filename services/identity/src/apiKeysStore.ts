import { tracedQuery, type Queryable } from "@argus/eventstore";
import { predefinedRole } from "@argus/platform";
import type { Principal } from "@argus/proto/common/v1";
import type { ApiKey } from "@argus/proto/identity/v1/api_keys";

/** Reads of identity's API key tables (never the secrets, except where a handler swaps them). */

export interface KeyRow {
  id: string;
  account_id: string;
  key_type: "USER" | "SERVICE";
  status: "ACTIVE" | "REVOKED";
  name: string;
  description: string;
  redacted_key: string;
  created_by_user_id: string;
  service_account_id: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

export const KEY_COLUMNS = `k.id, k.account_id, k.key_type, k.status, k.name, k.description, k.redacted_key,
  k.created_by_user_id, k.service_account_id, k.created_at, k.expires_at, k.last_used_at`;

export function toApiKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    keyType: r.key_type,
    status: r.status,
    redactedKey: r.redacted_key,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at?.toISOString() ?? "",
    lastUsedAt: r.last_used_at?.toISOString() ?? "",
    serviceAccountId: r.service_account_id ?? "",
  };
}

/** The key with the spaces its service account is bound to, row-locked for a state change. */
export async function loadKeyForUpdate(
  client: Queryable,
  accountId: string,
  id: string,
): Promise<(KeyRow & { bound_space_ids: string[] }) | undefined> {
  const res = await tracedQuery<KeyRow & { bound_space_ids: string[] }>(
    client,
    "load api key",
    `select ${KEY_COLUMNS},
            array(select rb.resource_id::text from role_bindings rb
                   where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                     and rb.resource_type = 'SPACE') as bound_space_ids
       from api_keys k
      where k.id = $1 and k.account_id = $2
      for update of k`,
    [id, accountId],
  );
  return res.rows[0];
}

/** The subject the caller's role bindings are recorded under. */
export function callerSubject(p: Principal): { type: "USER" | "SERVICE_ACCOUNT"; id: string } {
  return p.userId
    ? { type: "USER", id: p.userId }
    : { type: "SERVICE_ACCOUNT", id: p.serviceAccountId };
}

/**
 * Among `spaceIds`, the spaces where the caller is a space admin: bound to the predefined ADMIN
 * role on the space itself or on its organization.
 */
export async function adminSpaces(
  client: Queryable,
  p: Principal,
  spaceIds: readonly string[],
): Promise<Set<string>> {
  if (spaceIds.length === 0) return new Set();
  const who = callerSubject(p);
  const res = await tracedQuery<{ id: string }>(
    client,
    "caller admin spaces",
    `select s.id::text as id from spaces s
      where s.id = any($3::uuid[]) and s.account_id = $5
        and exists (select 1 from role_bindings rb
                     where rb.subject_type = $1 and rb.subject_id = $2 and rb.role_id = $4
                       and ((rb.resource_type = 'SPACE' and rb.resource_id = s.id)
                         or (rb.resource_type = 'ORGANIZATION' and rb.resource_id = s.organization_id)))`,
    [who.type, who.id, spaceIds, predefinedRole("ADMIN").id, p.accountId],
  );
  return new Set(res.rows.map((r) => r.id));
}
