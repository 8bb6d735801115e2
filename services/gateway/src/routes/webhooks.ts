import { LIMITS } from "@argus/contracts/limits";
import { decodeId, encodeId, notFound } from "@argus/platform";
import {
  WebhookServiceService,
  type DeliveryAttempt,
  type Webhook,
} from "@argus/proto/webhooks/v1/webhooks";
import type { Backend } from "../backend.ts";
import { noContent, type ResourceHandlers } from "../http/handler.ts";
import { type PathParam, pathId } from "./params.ts";
import { listPage } from "./listPage.ts";

/**
 * The deadline of a test delivery: the service waits on the customer's endpoint for up to the
 * webhook's `timeout_ms` (at most WEBHOOK_TIMEOUT_MS_MAX), plus a margin for the service's own
 * work, so the gateway does not give up on a test that is still within its timeout.
 */
export const TEST_WEBHOOK_DEADLINE_MS = LIMITS.WEBHOOK_TIMEOUT_MS_MAX + 5_000;

function toPublicWebhook(w: Webhook) {
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

function toPublicDeliveryAttempt(a: DeliveryAttempt) {
  return {
    event_id: a.eventId,
    attempt_number: a.attemptNumber,
    payload: payloadOf(a),
    status_code: a.statusCode ?? null,
    error_message: a.errorMessage ?? null,
    created_at: a.createdAt,
  };
}

const webhookId = (req: PathParam<"webhook_id">): string =>
  pathId("Webhook", req.params.webhook_id, "webhook");

export function webhookHandlers(dispatcher: Backend): ResourceHandlers<"webhooks"> {
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
      return listPage("webhooks", res.webhooks.map(toPublicWebhook), res.page);
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

    delete_webhook: (req) =>
      noContent(dispatcher.call(S.deleteWebhook, { id: webhookId(req) }, req)),

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
      return listPage(
        "delivery_attempts",
        res.deliveryAttempts.map(toPublicDeliveryAttempt),
        res.page,
      );
    },
  };
}
