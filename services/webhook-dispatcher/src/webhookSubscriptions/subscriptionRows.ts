import type { Queryable } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import type { Subscription } from "@argus/proto/webhooks/v1/webhooks";
import { rowInAccount } from "@argus/spaces";

export interface SubscriptionRow {
  id: string;
  organization_id: string;
  webhook_id: string;
  source_type: string;
  source_id: string;
  space_id: string;
  event: string;
  created_at: Date;
}

export const SUBSCRIPTION_COLUMNS = `id, organization_id, webhook_id, source_type, source_id,
  space_id, event, created_at`;

export const toSubscription = (r: SubscriptionRow): Subscription => ({
  id: r.id,
  webhookId: r.webhook_id,
  sourceType: r.source_type,
  sourceId: r.source_id,
  event: r.event,
  createdAt: r.created_at.toISOString(),
});

export async function subscriptionRow(
  db: Queryable,
  ctx: CallContext,
  id: string,
): Promise<SubscriptionRow> {
  return rowInAccount<SubscriptionRow>(
    db,
    ctx,
    "webhook_subscriptions",
    SUBSCRIPTION_COLUMNS,
    id,
    "webhook subscription",
  );
}
