import { tracedQuery, type Projections } from "@argus/eventstore";
import type { WebhookEvent } from "@argus/contracts";

// Webhook rows, in the command's transaction. A deleted webhook takes its credentials,
// subscriptions, deliveries and attempts with it (foreign keys, on delete cascade).
export const webhookProjections: Projections<WebhookEvent> = {
  WebhookCreated: (client, d) =>
    tracedQuery(
      client,
      "webhook created",
      `insert into webhooks (id, account_id, organization_id, name, description, url, auth_type,
         signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id,
         created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
      [
        d.id,
        d.account_id,
        d.organization_id,
        d.name,
        d.description,
        d.url,
        d.auth_type,
        d.signing_secret_hint,
        d.timeout_ms,
        JSON.stringify(d.headers),
        d.has_auth_token,
        d.created_by_user_id,
        d.created_at,
      ],
    ),
  WebhookUpdated: (client, d) =>
    tracedQuery(
      client,
      "webhook updated",
      `update webhooks set name = $2, description = $3, url = $4, timeout_ms = $5, headers = $6,
         has_auth_token = $7, updated_at = $8
       where id = $1`,
      [
        d.id,
        d.name,
        d.description,
        d.url,
        d.timeout_ms,
        JSON.stringify(d.headers),
        d.has_auth_token,
        d.updated_at,
      ],
    ),
  WebhookDeleted: (client, d) =>
    tracedQuery(client, "webhook deleted", "delete from webhooks where id = $1", [d.id]),
};
