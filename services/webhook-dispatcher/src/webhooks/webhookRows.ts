import type { Queryable } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { Webhook } from "@argus/proto/webhooks/v1/webhooks";
import { rowInAccount } from "@argus/spaces";
import { requireManager } from "./webhookAccess.ts";

export interface WebhookRow {
  id: string;
  account_id: string;
  organization_id: string;
  name: string;
  description: string;
  url: string;
  auth_type: string;
  signing_secret_hint: string;
  timeout_ms: number;
  headers: Record<string, string>;
  has_auth_token: boolean;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export const WEBHOOK_COLUMNS = `id, account_id, organization_id, name, description, url, auth_type,
  signing_secret_hint, timeout_ms, headers, has_auth_token, created_by_user_id, created_at,
  updated_at`;

export const toWebhook = (r: WebhookRow): Webhook => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  description: r.description,
  url: r.url,
  authType: r.auth_type,
  signingSecretHint: r.signing_secret_hint,
  timeoutMs: r.timeout_ms,
  headers: r.headers,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  createdByUserId: r.created_by_user_id,
});

/** The webhook if it is in the caller's account (authorization is the caller's to apply). */
export async function webhookRow(db: Queryable, ctx: CallContext, id: string): Promise<WebhookRow> {
  return rowInAccount<WebhookRow>(db, ctx, "webhooks", WEBHOOK_COLUMNS, id, "webhook");
}

/** The webhook if the caller manages it: 404 when it cannot see it, 403 when it only reads it. */
export async function managedWebhook(
  db: Queryable,
  ctx: CallContext,
  id: string,
  what: string,
): Promise<WebhookRow> {
  const row = await webhookRow(db, ctx, id);
  requireManager(ctx, row.organization_id, what);
  return row;
}
