import type { ApiKey } from "@argus/proto/identity/v1/api_keys";

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
