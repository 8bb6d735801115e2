import { tracedQuery, type Projections } from "@argus/eventstore";
import type { WebhookSubscriptionEvent } from "@argus/contracts";

// Subscription rows, in the command's transaction (a deleted webhook's go with it: on delete
// cascade).
export const subscriptionProjections: Projections<WebhookSubscriptionEvent> = {
  WebhookSubscriptionCreated: (client, d) =>
    tracedQuery(
      client,
      "subscription created",
      `insert into webhook_subscriptions (id, account_id, organization_id, webhook_id,
         source_type, source_id, space_id, event, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        d.id,
        d.account_id,
        d.organization_id,
        d.webhook_id,
        d.source_type,
        d.source_id,
        d.space_id,
        d.event,
        d.created_at,
      ],
    ),
  WebhookSubscriptionDeleted: (client, d) =>
    tracedQuery(client, "subscription deleted", "delete from webhook_subscriptions where id = $1", [
      d.id,
    ]),
};
