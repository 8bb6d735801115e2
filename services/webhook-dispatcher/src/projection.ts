import { projector } from "@argus/eventstore";
import type { WebhookDispatcherEvent } from "@argus/contracts";
import { subscriptionProjections } from "./webhookSubscriptions/subscriptionProjection.ts";
import { webhookProjections } from "./webhooks/webhookProjection.ts";

/** The dispatcher's inline projections, one per event type (the compiler checks none is missing). */
export const project = projector<WebhookDispatcherEvent>("webhook-dispatcher", {
  ...webhookProjections,
  ...subscriptionProjections,
});
