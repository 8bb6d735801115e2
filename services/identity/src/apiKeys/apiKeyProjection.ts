import type { Projections } from "@argus/eventstore";
import type { ApiKeyEvent, ServiceAccountEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** API keys and service accounts (secrets live in their own tables, written by commands). */
export const apiKeyProjections: Projections<ApiKeyEvent | ServiceAccountEvent> = {
  ServiceAccountCreated: sql(
    "ServiceAccountCreated",
    `insert into service_accounts (id, account_id, name, created_by_user_id, created_at, account_role)
       values ($1, $2, $3, $4, $5, $6)`,
    (d) => [
      d.id,
      d.account_id,
      d.name,
      d.created_by_user_id,
      d.created_at,
      d.account_role ?? "MEMBER",
    ],
  ),
  ServiceAccountRoleGranted: sql(
    "ServiceAccountRoleGranted",
    `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
       values ($1, $2, $3, 'SERVICE_ACCOUNT', $4, $5, $6, $7, $7)`,
    (d) => [
      d.id,
      d.account_id,
      d.role_id,
      d.service_account_id,
      d.resource_type,
      d.resource_id,
      d.created_at,
    ],
  ),
  ApiKeyCreated: sql(
    "ApiKeyCreated",
    `insert into api_keys (id, account_id, key_type, user_id, created_by_user_id, name, description, redacted_key, status, created_at, expires_at, service_account_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, 'ACTIVE', $9, $10, $11)`,
    (d) => [
      d.id,
      d.account_id,
      d.key_type,
      d.user_id,
      d.created_by_user_id,
      d.name,
      d.description,
      d.redacted_key,
      d.created_at,
      d.expires_at,
      d.service_account_id ?? null,
    ],
  ),
  ApiKeyRevoked: sql(
    "ApiKeyRevoked",
    "update api_keys set status = 'REVOKED' where id = $1",
    (d) => [d.id],
  ),
  ApiKeyRefreshed: sql(
    "ApiKeyRefreshed",
    "update api_keys set redacted_key = $2, expires_at = $3 where id = $1",
    (d) => [d.id, d.redacted_key, d.expires_at],
  ),
};
