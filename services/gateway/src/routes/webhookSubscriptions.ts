import type { WebhookSourceType } from "@argus/contracts/webhooks";
import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import { WebhookServiceService, type Subscription } from "@argus/proto/webhooks/v1/webhooks";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { type PathParam, pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

/** The public id type of a source's id, and the word its 404 names it by, per source type. */
const SOURCES: Record<WebhookSourceType, { idType: string; label: string }> = {
  PROMPT: { idType: "Prompt", label: "prompt" },
  EVALUATOR: { idType: "Evaluator", label: "evaluator" },
  ONLINE_TASK: { idType: "Task", label: "task" },
  SPACE: { idType: "Space", label: "space" },
};

function sourceOf(sourceType: string): { idType: string; label: string } {
  // The document admits only these four; another one from the service breaks the contract.
  if (!Object.hasOwn(SOURCES, sourceType))
    throw new Error(`unknown webhook source type ${sourceType}`);
  return SOURCES[sourceType as WebhookSourceType];
}

function toPublicSubscription(s: Subscription) {
  return {
    id: encodeId("WebhookSubscription", s.id),
    webhook_id: encodeId("Webhook", s.webhookId),
    source_type: s.sourceType,
    source_id: encodeId(sourceOf(s.sourceType).idType, s.sourceId),
    event: s.event,
    created_at: s.createdAt,
  };
}

const subscriptionId = (req: PathParam<"subscription_id">): string =>
  pathId("WebhookSubscription", req.params.subscription_id, "webhook subscription");

export function webhookSubscriptionHandlers(
  dispatcher: Backend,
): ResourceHandlers<"webhook-subscriptions"> {
  const S = WebhookServiceService;
  return {
    async list_webhook_subscriptions(req) {
      const sourceType = req.query.source_type;
      const rawSourceId = req.query.source_id;
      // The public API filters by one source, named by both; one alone is a 400.
      if ((sourceType === undefined) !== (rawSourceId === undefined))
        throw new DomainError(
          "invalid-request",
          "give source_type and source_id together, or neither",
        );
      let sourceId = "";
      if (sourceType !== undefined && rawSourceId !== undefined) {
        const source = sourceOf(sourceType);
        const decoded = decodeId(source.idType, rawSourceId);
        // An id that cannot name a source of this type names one that does not exist: 404.
        if (decoded === null) throw notFound(source.label);
        sourceId = decoded;
      }
      const res = await dispatcher.call(
        S.listSubscriptions,
        { page: req.page, sourceType: sourceType ?? "", sourceId },
        req,
      );
      return listPage("subscriptions", res.subscriptions.map(toPublicSubscription), res.page);
    },

    async create_webhook_subscription(req) {
      const b = req.body;
      // An id that does not decode is sent as "", which names nothing: the service then answers
      // its 404 at the point of the public API's order (event of the source 422, source 404 or
      // 403, task type 422, webhook 404), which the gateway alone could not keep.
      const res = await dispatcher.call(
        S.createSubscription,
        {
          webhookId: decodeId("Webhook", b.webhook_id) ?? "",
          sourceType: b.source_type,
          sourceId: decodeId(sourceOf(b.source_type).idType, b.source_id) ?? "",
          event: b.event,
        },
        req,
      );
      return { status: 201, body: toPublicSubscription(res) };
    },

    async get_webhook_subscription(req) {
      const res = await dispatcher.call(S.getSubscription, { id: subscriptionId(req) }, req);
      return { status: 200, body: toPublicSubscription(res) };
    },

    delete_webhook_subscription: (req) =>
      noContent(dispatcher.call(S.deleteSubscription, { id: subscriptionId(req) }, req)),
  };
}
