import { tracedQuery } from "@argus/eventstore";
import type { Projection } from "./projection.ts";

/** Projections of the API key and service account events (ApiKeyCreated is in the core set). */
export const apiKeyProjections: Record<string, Projection> = {
  ServiceAccountCreated: (client, d) =>
    tracedQuery(
      client,
      "project ServiceAccountCreated",
      `insert into service_accounts (id, account_id, name, created_by_user_id, created_at)
           values ($1, $2, $3, $4, $5)`,
      [d.id, d.account_id, d.name, d.created_by_user_id, d.created_at],
    ),
  ServiceAccountRoleGranted: (client, d) =>
    tracedQuery(
      client,
      "project ServiceAccountRoleGranted",
      `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
           values ($1, $2, $3, 'SERVICE_ACCOUNT', $4, $5, $6, $7, $7)`,
      [
        d.id,
        d.account_id,
        d.role_id,
        d.service_account_id,
        d.resource_type,
        d.resource_id,
        d.created_at,
      ],
    ),
  ApiKeyRevoked: (client, d) =>
    tracedQuery(
      client,
      "project ApiKeyRevoked",
      "update api_keys set status = 'REVOKED' where id = $1",
      [d.id],
    ),
  ApiKeyRefreshed: (client, d) =>
    tracedQuery(
      client,
      "project ApiKeyRefreshed",
      "update api_keys set redacted_key = $2, expires_at = $3 where id = $1",
      [d.id, d.redacted_key, d.expires_at],
    ),
};
