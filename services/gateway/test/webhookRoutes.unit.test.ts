import { setTimeout as sleep } from "node:timers/promises";
import type { ServiceError } from "@grpc/grpc-js";
import {
  DomainError,
  NOBODY,
  bindService,
  createLogger,
  encodeId,
  generateCallKeyPair,
  parsePrivateKey,
  parsePublicKey,
  principalSigner,
  startGrpcServer,
  toGrpcError,
  type ClientMethod,
  type RunningGrpcServer,
} from "@argus/platform";
import {
  WebhookServiceService,
  type CreateSubscriptionRequest,
  type CreateWebhookRequest,
  type ListDeliveryAttemptsRequest,
  type ListSubscriptionsRequest,
  type ListWebhooksRequest,
  type Subscription,
  type UpdateWebhookRequest,
  type Webhook,
} from "@argus/proto/webhooks/v1/webhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBackend, type Backend, type CallOverrides, type Caller } from "../src/backend.ts";
import { webhookSubscriptionHandlers } from "../src/routes/webhookSubscriptions.ts";
import { TEST_WEBHOOK_DEADLINE_MS, webhookHandlers } from "../src/routes/webhooks.ts";
import { AT, LATER, documentedRoutes, uuid } from "./startGateway.ts";
import { routesOnRecording } from "./recordingBackend.ts";

const WEBHOOK = uuid(1);
const ORG = uuid(2);
const USER = uuid(3);
const SUBSCRIPTION = uuid(4);
const PROMPT = uuid(5);
const TASK = uuid(6);
const pub = {
  webhook: encodeId("Webhook", WEBHOOK),
  org: encodeId("Organization", ORG),
  user: encodeId("User", USER),
  subscription: encodeId("WebhookSubscription", SUBSCRIPTION),
  prompt: encodeId("Prompt", PROMPT),
  task: encodeId("Task", TASK),
};

const webhook = (over: Partial<Webhook> = {}): Webhook => ({
  id: WEBHOOK,
  organizationId: ORG,
  name: "deploys",
  description: "",
  url: "https://hooks.example.com/argus",
  authType: "BEARER",
  signingSecretHint: "",
  timeoutMs: 30_000,
  headers: { "X-Team": "ml" },
  createdAt: AT,
  updatedAt: LATER,
  createdByUserId: USER,
  ...over,
});
const subscription = (over: Partial<Subscription> = {}): Subscription => ({
  id: SUBSCRIPTION,
  webhookId: WEBHOOK,
  sourceType: "PROMPT",
  sourceId: PROMPT,
  event: "PROMPT_VERSION_CREATED",
  createdAt: AT,
  ...over,
});

// The recording backend, plus what each call asked of the backend's defaults (the deadline).
const overrides: (CallOverrides | undefined)[] = [];
const { calls, answers, gateway } = routesOnRecording((recording) => {
  const fake: Backend = {
    ...recording,
    call<Req, Res>(
      method: ClientMethod<Req, Res>,
      request: Req,
      from: Caller,
      o?: CallOverrides,
    ): Promise<Res> {
      overrides.push(o);
      return recording.call(method, request, from);
    },
  };
  return { ...webhookHandlers(fake), ...webhookSubscriptionHandlers(fake) };
});
beforeEach(() => {
  overrides.length = 0;
});
const { ops, op, call, edge } = documentedRoutes(gateway, {
  webhook_id: pub.webhook,
  subscription_id: pub.subscription,
});

describe("the document", () => {
  it("serves the SDK's eleven operations with its ids, methods and paths", () => {
    expect(
      ops
        .filter((o) => /^\/v2\/webhook/.test(o.path))
        .map((o) => [o.operationId, o.method, o.path, o.paginated, o.hasBody])
        .sort(),
    ).toEqual(
      [
        ["list_webhooks", "get", "/v2/webhooks", true, false],
        ["create_webhook", "post", "/v2/webhooks", false, true],
        ["get_webhook", "get", "/v2/webhooks/{webhook_id}", false, false],
        ["update_webhook", "patch", "/v2/webhooks/{webhook_id}", false, true],
        ["delete_webhook", "delete", "/v2/webhooks/{webhook_id}", false, false],
        ["test_webhook", "post", "/v2/webhooks/{webhook_id}/test", false, false],
        [
          "list_webhook_delivery_attempts",
          "get",
          "/v2/webhooks/{webhook_id}/delivery-attempts",
          true,
          false,
        ],
        ["list_webhook_subscriptions", "get", "/v2/webhook-subscriptions", true, false],
        ["create_webhook_subscription", "post", "/v2/webhook-subscriptions", false, true],
        [
          "get_webhook_subscription",
          "get",
          "/v2/webhook-subscriptions/{subscription_id}",
          false,
          false,
        ],
        [
          "delete_webhook_subscription",
          "delete",
          "/v2/webhook-subscriptions/{subscription_id}",
          false,
          false,
        ],
      ].sort(),
    );
  });

  const create = (over: object) => ({
    body: { organization_id: pub.org, name: "n", url: "https://x.example", ...over },
  });

  it("measures a webhook name up to 255 characters, not blank", () => {
    expect(edge("create_webhook", create({ name: "n".repeat(255) }))).toBe("ok");
    expect(edge("create_webhook", create({ name: "😀".repeat(255) }))).toBe("ok");
    expect(edge("create_webhook", create({ name: "n".repeat(256) }))).toBe("invalid-request");
    expect(edge("create_webhook", create({ name: "" }))).toBe("invalid-request");
    expect(edge("create_webhook", create({ name: "  " }))).toBe("invalid-request");
    expect(edge("update_webhook", { body: { name: "n".repeat(255) } })).toBe("ok");
    expect(edge("update_webhook", { body: { name: "n".repeat(256) } })).toBe("invalid-request");
  });

  it("takes timeout_ms from 1000 to 60000", () => {
    const timeouts = [999, 1000, 60000, 60001, 1500.5];
    expect(timeouts.map((t) => edge("create_webhook", create({ timeout_ms: t })))).toEqual([
      "invalid-request",
      "ok",
      "ok",
      "invalid-request",
      "invalid-request",
    ]);
    expect(timeouts.map((t) => edge("update_webhook", { body: { timeout_ms: t } }))).toEqual([
      "invalid-request",
      "ok",
      "ok",
      "invalid-request",
      "invalid-request",
    ]);
  });

  it("takes at most 20 headers, string valued", () => {
    const headers = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, "v"]));
    expect(edge("create_webhook", create({ headers: headers(20) }))).toBe("ok");
    expect(edge("create_webhook", create({ headers: headers(21) }))).toBe("invalid-request");
    expect(edge("update_webhook", { body: { headers: headers(20) } })).toBe("ok");
    expect(edge("update_webhook", { body: { headers: headers(21) } })).toBe("invalid-request");
    expect(edge("create_webhook", create({ headers: { "X-N": 1 } }))).toBe("invalid-request");
  });

  it("refuses system fields, unknown fields, unknown auth types and a missing field with 400", () => {
    for (const field of ["id", "created_at", "updated_at", "signing_secret", "nope"])
      expect(edge("create_webhook", create({ [field]: "x" })), field).toBe("invalid-request");
    expect(edge("create_webhook", create({ auth_type: "HMAC_SHA256" }))).toBe("ok");
    expect(edge("create_webhook", create({ auth_type: "BASIC" }))).toBe("invalid-request");
    expect(edge("create_webhook", { body: { organization_id: pub.org, name: "n" } })).toBe(
      "invalid-request",
    );
  });

  it("updates at least one field; null clears description and auth_token; auth_type is fixed", () => {
    expect(edge("update_webhook", { body: {} })).toBe("invalid-request");
    expect(edge("update_webhook", { body: { description: null, auth_token: null } })).toBe("ok");
    expect(edge("update_webhook", { body: { name: null } })).toBe("invalid-request");
    for (const field of ["auth_type", "id", "created_at", "updated_at", "organization_id"])
      expect(edge("update_webhook", { body: { [field]: "x" } }), field).toBe("invalid-request");
  });

  it("checks a subscription body with 422, its events and source types by name", () => {
    const body = {
      webhook_id: pub.webhook,
      source_type: "PROMPT",
      source_id: pub.prompt,
      event: "PROMPT_VERSION_CREATED",
    };
    expect(edge("create_webhook_subscription", { body })).toBe("ok");
    expect(
      edge("create_webhook_subscription", { body: { ...body, event: "prompt.created" } }),
    ).toBe("validation-error");
    expect(edge("create_webhook_subscription", { body: { ...body, source_type: "TASK" } })).toBe(
      "validation-error",
    );
    expect(edge("create_webhook_subscription", { body: { ...body, id: pub.subscription } })).toBe(
      "validation-error",
    );
    const { event: _event, ...noEvent } = body;
    expect(edge("create_webhook_subscription", { body: noEvent })).toBe("validation-error");
  });

  it("pages webhooks and subscriptions by up to 100, delivery attempts by up to 500", () => {
    const limit = (id: string, v: string) => edge(id, { query: { limit: v } });
    expect(["1", "100", "101"].map((v) => limit("list_webhooks", v))).toEqual([
      "ok",
      "ok",
      "invalid-request",
    ]);
    expect(["100", "101"].map((v) => limit("list_webhook_subscriptions", v))).toEqual([
      "ok",
      "invalid-request",
    ]);
    expect(["0", "500", "501"].map((v) => limit("list_webhook_delivery_attempts", v))).toEqual([
      "invalid-request",
      "ok",
      "invalid-request",
    ]);
    const defaults = { params: { webhook_id: pub.webhook }, query: {}, body: undefined };
    expect(op("list_webhook_delivery_attempts").validate(defaults).query.limit).toBe(50);
    expect(edge("list_webhooks", { query: { name: "n".repeat(256) } })).toBe("invalid-request");
    expect(edge("list_webhook_subscriptions", { query: { source_type: "TASK" } })).toBe(
      "invalid-request",
    );
  });
});

describe("webhooks", () => {
  it("lists with the organization's uuid and the name filter, rendering public ids", async () => {
    answers.ListWebhooks = () => ({
      webhooks: [
        webhook(),
        webhook({
          authType: "HMAC_SHA256",
          signingSecretHint: "whsec_…abcd",
          createdByUserId: "",
          headers: {},
        }),
      ],
      page: { nextAfter: "w2" },
    });
    const res = await call("GET", `/v2/webhooks?org_id=${pub.org}&name=dep&limit=2`);
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListWebhooks",
        request: {
          page: { limit: 2, after: "" },
          organizationId: ORG,
          name: "dep",
        } satisfies ListWebhooksRequest,
      },
    ]);
    const [bearer, hmac] = res.json.webhooks as Record<string, unknown>[];
    expect(bearer).toEqual({
      id: pub.webhook,
      organization_id: pub.org,
      name: "deploys",
      description: "",
      url: "https://hooks.example.com/argus",
      auth_type: "BEARER",
      timeout_ms: 30000,
      headers: { "X-Team": "ml" },
      created_at: AT,
      updated_at: LATER,
      created_by_user_id: pub.user,
    });
    expect(hmac!.signing_secret_hint).toBe("whsec_…abcd");
    expect(hmac).not.toHaveProperty("created_by_user_id");
    expect(res.json.pagination).toMatchObject({ has_more: true });

    answers.ListWebhooks = () => ({ webhooks: [], page: { nextAfter: "" } });
    const next = (res.json.pagination as { next_cursor: string }).next_cursor;
    const second = await call("GET", `/v2/webhooks?org_id=${pub.org}&name=dep&cursor=${next}`);
    expect(second.json).toEqual({ webhooks: [], pagination: { has_more: false } });
    expect((calls[1]!.request as ListWebhooksRequest).page).toEqual({ limit: 50, after: "w2" });
  });

  it("lists every organization's webhooks without org_id, and 404s an org_id of another type", async () => {
    answers.ListWebhooks = () => ({ webhooks: [], page: { nextAfter: "" } });
    expect((await call("GET", "/v2/webhooks")).status).toBe(200);
    expect((calls[0]!.request as ListWebhooksRequest).organizationId).toBe("");
    calls.length = 0;
    const foreign = await call("GET", `/v2/webhooks?org_id=${encodeId("Space", ORG)}`);
    expect([foreign.status, foreign.json.detail]).toEqual([404, "organization not found"]);
    expect(calls).toEqual([]);
  });

  it("creates a BEARER webhook: the service's defaults asked for, no secret answered", async () => {
    // A secret from the service for a BEARER webhook is still not shown.
    answers.CreateWebhook = () => ({ webhook: webhook(), signingSecret: "whsec_leak" });
    const res = await call("POST", "/v2/webhooks", {
      organization_id: pub.org,
      name: "deploys",
      url: "https://hooks.example.com/argus",
      auth_token: "Bearer t0k",
    });
    expect(res.status).toBe(201);
    expect(calls).toEqual([
      {
        rpc: "CreateWebhook",
        request: {
          organizationId: ORG,
          name: "deploys",
          url: "https://hooks.example.com/argus",
          description: "",
          authType: "",
          authToken: "Bearer t0k",
          timeoutMs: 0,
          headers: {},
        } satisfies CreateWebhookRequest,
      },
    ]);
    expect(res.json).not.toHaveProperty("signing_secret");
    expect(res.json).not.toHaveProperty("signing_secret_hint");
    expect(res.json).not.toHaveProperty("auth_token");
    expect(res.json.id).toBe(pub.webhook);
  });

  it("creates an HMAC_SHA256 webhook and answers its signing secret once", async () => {
    answers.CreateWebhook = () => ({
      webhook: webhook({ authType: "HMAC_SHA256", signingSecretHint: "whsec_…abcd" }),
      signingSecret: "whsec_0123456789abcd",
    });
    const res = await call("POST", "/v2/webhooks", {
      organization_id: pub.org,
      name: "signed",
      url: "https://hooks.example.com/argus",
      description: "d",
      auth_type: "HMAC_SHA256",
      timeout_ms: 60000,
      headers: { "X-A": "1" },
    });
    expect(res.status).toBe(201);
    expect(calls[0]!.request).toEqual({
      organizationId: ORG,
      name: "signed",
      url: "https://hooks.example.com/argus",
      description: "d",
      authType: "HMAC_SHA256",
      timeoutMs: 60000,
      headers: { "X-A": "1" },
    } satisfies CreateWebhookRequest);
    expect(res.json).toMatchObject({
      auth_type: "HMAC_SHA256",
      signing_secret: "whsec_0123456789abcd",
      signing_secret_hint: "whsec_…abcd",
      headers: { "X-Team": "ml" },
    });
  });

  it("answers 404 for an organization_id that names no organization, asking no one", async () => {
    const res = await call("POST", "/v2/webhooks", {
      organization_id: encodeId("Webhook", ORG),
      name: "n",
      url: "https://x.example",
    });
    expect([res.status, res.json.detail]).toEqual([404, "organization not found"]);
    expect(calls).toEqual([]);
  });

  it("gets and deletes by the path id; another type's id is a 404", async () => {
    answers.GetWebhook = () => webhook();
    const got = await call("GET", `/v2/webhooks/${pub.webhook}`);
    expect(got.status).toBe(200);
    expect(got.json.id).toBe(pub.webhook);
    answers.DeleteWebhook = () => ({});
    const deleted = await call("DELETE", `/v2/webhooks/${pub.webhook}`);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expect(calls).toEqual([
      { rpc: "GetWebhook", request: { id: WEBHOOK } },
      { rpc: "DeleteWebhook", request: { id: WEBHOOK } },
    ]);
    calls.length = 0;
    for (const path of [
      `/v2/webhooks/${pub.prompt}`,
      `/v2/webhooks/${pub.subscription}/test`,
      `/v2/webhooks/${pub.org}/delivery-attempts`,
      "/v2/webhooks/not-an-id",
    ]) {
      const method = path.endsWith("/test") ? "POST" : "GET";
      expect((await call(method, path)).status, path).toBe(404);
    }
    expect(calls).toEqual([]);
  });

  it("updates the fields the body names: null description and auth_token are sent absent", async () => {
    answers.UpdateWebhook = () => webhook({ description: "" });
    const res = await call("PATCH", `/v2/webhooks/${pub.webhook}`, {
      description: null,
      auth_token: null,
      timeout_ms: 1000,
    });
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "UpdateWebhook",
        request: {
          id: WEBHOOK,
          fields: ["description", "auth_token", "timeout_ms"],
          name: "",
          url: "",
          timeoutMs: 1000,
          headers: {},
        } satisfies UpdateWebhookRequest,
      },
    ]);

    calls.length = 0;
    await call("PATCH", `/v2/webhooks/${pub.webhook}`, {
      name: "renamed",
      description: "now",
      url: "https://y.example",
      auth_token: "Bearer new",
      headers: {},
    });
    expect(calls[0]!.request).toEqual({
      id: WEBHOOK,
      fields: ["name", "description", "url", "auth_token", "headers"],
      name: "renamed",
      description: "now",
      url: "https://y.example",
      authToken: "Bearer new",
      timeoutMs: 0,
      headers: {},
    } satisfies UpdateWebhookRequest);
  });

  it("refuses an update the edge can judge, asking no one", async () => {
    for (const body of [{}, { auth_type: "HMAC_SHA256" }, { name: "n".repeat(256) }]) {
      const res = await call("PATCH", `/v2/webhooks/${pub.webhook}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(calls).toEqual([]);
  });

  it("tests with a deadline that outlasts the longest webhook timeout", async () => {
    answers.TestWebhook = () => ({ statusCode: 204 });
    const ok = await call("POST", `/v2/webhooks/${pub.webhook}/test`);
    expect([ok.status, ok.json]).toEqual([200, { status_code: 204, error_message: null }]);
    expect(calls).toEqual([{ rpc: "TestWebhook", request: { id: WEBHOOK } }]);
    expect(TEST_WEBHOOK_DEADLINE_MS).toBe(65_000);
    expect(overrides).toEqual([{ deadlineMs: 65_000 }]);

    answers.TestWebhook = () => ({ statusCode: 502, errorMessage: "connection refused" });
    const failed = await call("POST", `/v2/webhooks/${pub.webhook}/test`);
    expect(failed.json).toEqual({ status_code: 502, error_message: "connection refused" });

    answers.TestWebhook = () => {
      throw toGrpcError(
        new DomainError("invalid-request", "test deliveries are not supported for HMAC_SHA256"),
      );
    };
    const hmac = await call("POST", `/v2/webhooks/${pub.webhook}/test`);
    expect([hmac.status, hmac.json.status]).toEqual([400, 400]);
    answers.TestWebhook = () => {
      throw toGrpcError(new DomainError("service-unavailable", "try again"));
    };
    expect((await call("POST", `/v2/webhooks/${pub.webhook}/test`)).status).toBe(503);
  });

  it("gives other calls the backend's own deadline", async () => {
    answers.GetWebhook = () => webhook();
    await call("GET", `/v2/webhooks/${pub.webhook}`);
    expect(overrides).toEqual([undefined]);
  });

  it("lists delivery attempts with their payloads as objects and absent outcomes as null", async () => {
    const payload = { event: "prompt.version.created", data: { prompt_id: pub.prompt, n: 1.5 } };
    answers.ListDeliveryAttempts = () => ({
      deliveryAttempts: [
        {
          eventId: "e2",
          attemptNumber: 2,
          payloadJson: JSON.stringify(payload),
          statusCode: 200,
          createdAt: LATER,
        },
        {
          eventId: "e2",
          attemptNumber: 1,
          payloadJson: JSON.stringify(payload),
          errorMessage: "timed out",
          createdAt: AT,
        },
      ],
      page: { nextAfter: "a1" },
    });
    const res = await call("GET", `/v2/webhooks/${pub.webhook}/delivery-attempts?limit=500`);
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListDeliveryAttempts",
        request: {
          page: { limit: 500, after: "" },
          webhookId: WEBHOOK,
        } satisfies ListDeliveryAttemptsRequest,
      },
    ]);
    expect(res.json.delivery_attempts).toEqual([
      {
        event_id: "e2",
        attempt_number: 2,
        payload,
        status_code: 200,
        error_message: null,
        created_at: LATER,
      },
      {
        event_id: "e2",
        attempt_number: 1,
        payload,
        status_code: null,
        error_message: "timed out",
        created_at: AT,
      },
    ]);
    expect(res.json.pagination).toMatchObject({ has_more: true });
  });

  it("answers a payload that is not a JSON object as a 500, not as text", async () => {
    answers.ListDeliveryAttempts = () => ({
      deliveryAttempts: [{ eventId: "e", attemptNumber: 1, payloadJson: "[1]", createdAt: AT }],
    });
    expect((await call("GET", `/v2/webhooks/${pub.webhook}/delivery-attempts`)).status).toBe(500);
  });
});

describe("webhook subscriptions", () => {
  it("lists one source when given source_type and source_id together, decoded by type", async () => {
    answers.ListSubscriptions = () => ({
      subscriptions: [
        subscription({
          sourceType: "ONLINE_TASK",
          sourceId: TASK,
          event: "ONLINE_TASK_RUN_FAILED",
        }),
      ],
      page: { nextAfter: "" },
    });
    const res = await call(
      "GET",
      `/v2/webhook-subscriptions?source_type=ONLINE_TASK&source_id=${pub.task}`,
    );
    expect(res.status).toBe(200);
    expect(calls).toEqual([
      {
        rpc: "ListSubscriptions",
        request: {
          page: { limit: 50, after: "" },
          sourceType: "ONLINE_TASK",
          sourceId: TASK,
        } satisfies ListSubscriptionsRequest,
      },
    ]);
    expect(res.json).toEqual({
      subscriptions: [
        {
          id: pub.subscription,
          webhook_id: pub.webhook,
          source_type: "ONLINE_TASK",
          source_id: pub.task,
          event: "ONLINE_TASK_RUN_FAILED",
          created_at: AT,
        },
      ],
      pagination: { has_more: false },
    });
  });

  it("lists every readable source without filters", async () => {
    answers.ListSubscriptions = () => ({ subscriptions: [subscription()] });
    const res = await call("GET", "/v2/webhook-subscriptions");
    expect(res.status).toBe(200);
    expect(calls[0]!.request).toEqual({
      page: { limit: 50, after: "" },
      sourceType: "",
      sourceId: "",
    } satisfies ListSubscriptionsRequest);
    expect((res.json.subscriptions as { source_id: string }[])[0]!.source_id).toBe(pub.prompt);
  });

  it("refuses source_type or source_id alone with 400, and 404s a source id of another type", async () => {
    for (const query of ["source_type=PROMPT", `source_id=${pub.prompt}`]) {
      const res = await call("GET", `/v2/webhook-subscriptions?${query}`);
      expect([res.status, res.json.detail], query).toEqual([
        400,
        "give source_type and source_id together, or neither",
      ]);
    }
    const foreign = await call(
      "GET",
      `/v2/webhook-subscriptions?source_type=ONLINE_TASK&source_id=${pub.prompt}`,
    );
    expect([foreign.status, foreign.json.detail]).toEqual([404, "task not found"]);
    expect(calls).toEqual([]);
  });

  it("creates with decoded ids and answers the source id in its type's spelling", async () => {
    answers.CreateSubscription = () => subscription();
    const res = await call("POST", "/v2/webhook-subscriptions", {
      webhook_id: pub.webhook,
      source_type: "PROMPT",
      source_id: pub.prompt,
      event: "PROMPT_VERSION_CREATED",
    });
    expect(res.status).toBe(201);
    expect(calls).toEqual([
      {
        rpc: "CreateSubscription",
        request: {
          webhookId: WEBHOOK,
          sourceType: "PROMPT",
          sourceId: PROMPT,
          event: "PROMPT_VERSION_CREATED",
        } satisfies CreateSubscriptionRequest,
      },
    ]);
    expect(res.json).toEqual({
      id: pub.subscription,
      webhook_id: pub.webhook,
      source_type: "PROMPT",
      source_id: pub.prompt,
      event: "PROMPT_VERSION_CREATED",
      created_at: AT,
    });
  });

  it("sends ids that name nothing as empty, so the service's 404 keeps the public order", async () => {
    answers.CreateSubscription = (r) => {
      const req = r as CreateSubscriptionRequest;
      throw toGrpcError(
        new DomainError(
          "resource-not-found",
          req.sourceId ? "webhook not found" : "space not found",
        ),
      );
    };
    const source = await call("POST", "/v2/webhook-subscriptions", {
      webhook_id: pub.webhook,
      source_type: "SPACE",
      source_id: pub.task,
      event: "ONLINE_TASK_RUN_FAILED",
    });
    expect([source.status, source.json.detail]).toEqual([404, "space not found"]);
    const hook = await call("POST", "/v2/webhook-subscriptions", {
      webhook_id: pub.prompt,
      source_type: "ONLINE_TASK",
      source_id: pub.task,
      event: "ONLINE_TASK_RUN_FAILED",
    });
    expect([hook.status, hook.json.detail]).toEqual([404, "webhook not found"]);
    expect(calls.map((c) => c.request)).toEqual([
      { webhookId: WEBHOOK, sourceType: "SPACE", sourceId: "", event: "ONLINE_TASK_RUN_FAILED" },
      { webhookId: "", sourceType: "ONLINE_TASK", sourceId: TASK, event: "ONLINE_TASK_RUN_FAILED" },
    ] satisfies CreateSubscriptionRequest[]);
  });

  it("gets and deletes by the path id; another type's id is a 404", async () => {
    answers.GetSubscription = () => subscription({ sourceType: "EVALUATOR", sourceId: PROMPT });
    const got = await call("GET", `/v2/webhook-subscriptions/${pub.subscription}`);
    expect(got.json.source_id).toBe(encodeId("Evaluator", PROMPT));
    answers.DeleteSubscription = () => ({});
    const deleted = await call("DELETE", `/v2/webhook-subscriptions/${pub.subscription}`);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expect(calls).toEqual([
      { rpc: "GetSubscription", request: { id: SUBSCRIPTION } },
      { rpc: "DeleteSubscription", request: { id: SUBSCRIPTION } },
    ]);
    calls.length = 0;
    expect((await call("GET", `/v2/webhook-subscriptions/${pub.webhook}`)).status).toBe(404);
    expect((await call("DELETE", `/v2/webhook-subscriptions/${pub.webhook}`)).status).toBe(404);
    expect(calls).toEqual([]);
  });
});

describe("the backend's deadline override", () => {
  const keys = generateCallKeyPair();
  const signing = { callers: principalSigner(parsePrivateKey(keys.privateKey)) };
  let server: RunningGrpcServer;
  const from: Caller = { principal: NOBODY, requestId: "r", clientIp: "127.0.0.1" };

  beforeAll(async () => {
    // A test delivery that takes 300 ms, against calls allowed 100 ms by default.
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [
        bindService(
          { testWebhook: WebhookServiceService.testWebhook },
          {
            testWebhook: async () => {
              await sleep(300);
              return { statusCode: 200 };
            },
          },
        ),
      ],
      trust: { keys: { gateway: parsePublicKey(keys.publicKey) } },
      logger: createLogger({ service: "test", write: () => {} }),
    });
  });
  afterAll(() => server.shutdown(0));

  it("bounds a call by the backend's deadline unless the call names its own", async () => {
    const backend = createBackend(`127.0.0.1:${server.port}`, signing, 100);
    try {
      const slow = backend.call(WebhookServiceService.testWebhook, { id: WEBHOOK }, from);
      await expect(slow).rejects.toMatchObject({ code: 4 } satisfies Partial<ServiceError>);
      await expect(
        backend.call(WebhookServiceService.testWebhook, { id: WEBHOOK }, from, {
          deadlineMs: 5_000,
        }),
      ).resolves.toEqual({ statusCode: 200 });
      // The route's own call outlasts the backend's 100 ms.
      const handler = webhookHandlers(backend).test_webhook;
      await expect(
        handler({
          ...from,
          body: undefined,
          query: {},
          params: { webhook_id: pub.webhook },
          page: { limit: 0, after: "" },
          logger: createLogger({ service: "test", write: () => {} }),
        }),
      ).resolves.toEqual({ status: 200, body: { status_code: 200, error_message: null } });
    } finally {
      backend.close();
    }
  });
});
