import { LIMITS } from "@argus/contracts/limits";
import type { WebhookSourceType } from "@argus/contracts/webhooks";
import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import {
  WebhookServiceService,
  type DeliveryAttempt,
  type Subscription,
  type Webhook,
} from "@argus/proto/webhooks/v1/webhooks";
import type { Backend } from "../backend.ts";
import type { ResourceHandlers } from "../http/handler.ts";
import { type PathParam, pathId } from "./params.ts";

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

/**
 * The deadline of a test delivery: the service waits on the customer's endpoint for up to the
 * webhook's `timeout_ms` (at most WEBHOOK_TIMEOUT_MS_MAX), plus a margin for the service's own
 * work, so the gateway does not give up on a test that is still within its timeout.
 */
export const TEST_WEBHOOK_DEADLINE_MS = LIMITS.WEBHOOK_TIMEOUT_MS_MAX + 5_000;

export function toPublicWebhook(w: Webhook) {
  return {
    id: encodeId("Webhook", w.id),
    organization_id: encodeId("Organization", w.organizationId),
    name: w.name,
    description: w.description,
    url: w.url,
    auth_type: w.authType,
    // The public Webhook carries the hint only for HMAC_SHA256 (the service sends "" for BEARER).
    ...(w.signingSecretHint ? { signing_secret_hint: w.signingSecretHint } : {}),
    timeout_ms: w.timeoutMs,
    headers: { ...w.headers },
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    // Absent, as the public API documents, when no user created it (a service account).
    ...(w.createdByUserId ? { created_by_user_id: encodeId("User", w.createdByUserId) } : {}),
  };
}

/** The body the endpoint received, as the object it is (the service keeps it as JSON text). */
function payloadOf(a: DeliveryAttempt): Record<string, unknown> {
  const payload = JSON.parse(a.payloadJson) as unknown;
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    throw new Error(`delivery attempt of event ${a.eventId} has a payload that is not an object`);
  return payload as Record<string, unknown>;
}

export function toPublicDeliveryAttempt(a: DeliveryAttempt) {
  return {
    event_id: a.eventId,
    attempt_number: a.attemptNumber,
    payload: payloadOf(a),
    status_code: a.statusCode ?? null,
    error_message: a.errorMessage ?? null,
    created_at: a.createdAt,
  };
}

export function toPublicSubscription(s: Subscription) {
  return {
    id: encodeId("WebhookSubscription", s.id),
    webhook_id: encodeId("Webhook", s.webhookId),
    source_type: s.sourceType,
    source_id: encodeId(sourceOf(s.sourceType).idType, s.sourceId),
    event: s.event,
    created_at: s.createdAt,
  };
}

const webhookId = (req: PathParam<"webhook_id">): string =>
  pathId("Webhook", req.params.webhook_id, "webhook");
const subscriptionId = (req: PathParam<"subscription_id">): string =>
  pathId("WebhookSubscription", req.params.subscription_id, "webhook subscription");

export function webhookHandlers(
  dispatcher: Backend,
): ResourceHandlers<"webhooks" | "webhook-subscriptions"> {
  const S = WebhookServiceService;
  return {
    async list_webhooks(req) {
      const orgId = req.query.org_id;
      const organizationId = orgId === undefined ? "" : decodeId("Organization", orgId);
      // The public API's only 404 here: an organization that does not exist for the caller.
      if (organizationId === null) throw notFound("organization");
      const res = await dispatcher.call(
        S.listWebhooks,
        { page: req.page, organizationId, name: req.query.name ?? "" },
        req,
      );
      return {
        status: 200,
        body: { webhooks: res.webhooks.map(toPublicWebhook) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_webhook(req) {
      const b = req.body;
      const organizationId = decodeId("Organization", b.organization_id);
      if (organizationId === null) throw notFound("organization");
      const res = await dispatcher.call(
        S.createWebhook,
        {
          organizationId,
          name: b.name,
          url: b.url,
          description: b.description ?? "",
          // "" and 0 ask the service for its defaults (BEARER, WEBHOOK_TIMEOUT_MS_DEFAULT).
          authType: b.auth_type ?? "",
          ...(b.auth_token === undefined ? {} : { authToken: b.auth_token }),
          timeoutMs: b.timeout_ms ?? 0,
          headers: b.headers ?? {},
        },
        req,
      );
      if (!res.webhook) throw new Error("CreateWebhook answered without the webhook");
      const webhook = toPublicWebhook(res.webhook);
      // The secret is shown once, and only for the auth type that has one.
      const secret =
        webhook.auth_type === "HMAC_SHA256" && res.signingSecret
          ? { signing_secret: res.signingSecret }
          : {};
      return { status: 201, body: { ...webhook, ...secret } };
    },

    async get_webhook(req) {
      const res = await dispatcher.call(S.getWebhook, { id: webhookId(req) }, req);
      return { status: 200, body: toPublicWebhook(res) };
    },

    async update_webhook(req) {
      const b = req.body;
      const res = await dispatcher.call(
        S.updateWebhook,
        {
          id: webhookId(req),
          // Which fields change is what the body names; null (description, auth_token) is a
          // named field sent absent, which clears it.
          fields: Object.keys(b),
          name: b.name ?? "",
          ...(typeof b.description === "string" ? { description: b.description } : {}),
          url: b.url ?? "",
          ...(typeof b.auth_token === "string" ? { authToken: b.auth_token } : {}),
          timeoutMs: b.timeout_ms ?? 0,
          headers: b.headers ?? {},
        },
        req,
      );
      return { status: 200, body: toPublicWebhook(res) };
    },

    async delete_webhook(req) {
      await dispatcher.call(S.deleteWebhook, { id: webhookId(req) }, req);
      return { status: 204 };
    },

    async test_webhook(req) {
      const res = await dispatcher.call(S.testWebhook, { id: webhookId(req) }, req, {
        // Never shorter than the configured deadline, should that be the longer one.
        deadlineMs: Math.max(dispatcher.deadlineMs, TEST_WEBHOOK_DEADLINE_MS),
      });
      return {
        status: 200,
        body: { status_code: res.statusCode, error_message: res.errorMessage ?? null },
      };
    },

    async list_webhook_delivery_attempts(req) {
      const res = await dispatcher.call(
        S.listDeliveryAttempts,
        { page: req.page, webhookId: webhookId(req) },
        req,
      );
      return {
        status: 200,
        body: { delivery_attempts: res.deliveryAttempts.map(toPublicDeliveryAttempt) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

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
      return {
        status: 200,
        body: { subscriptions: res.subscriptions.map(toPublicSubscription) },
        nextAfter: res.page?.nextAfter ?? "",
      };
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

    async delete_webhook_subscription(req) {
      await dispatcher.call(S.deleteSubscription, { id: subscriptionId(req) }, req);
      return { status: 204 };
    },
  };
}
