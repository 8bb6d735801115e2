import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { webhookDecider, type WebhookCommand } from "../src/webhooks/webhookDecider.ts";
import { requireEventOfSource } from "../src/webhookSubscriptions/subscriptionDecider.ts";

const settings = {
  name: "hook",
  description: "",
  url: "https://example.com/hook",
  timeout_ms: 30000,
  headers: {},
  has_auth_token: false,
};
const create = (
  over: Partial<typeof settings> = {},
  authType: "BEARER" | "HMAC_SHA256" = "BEARER",
): WebhookCommand => ({
  type: "CreateWebhook",
  id: "w",
  accountId: "a",
  organizationId: "o",
  authType,
  signingSecretHint: "",
  settings: { ...settings, ...over },
  userId: "u",
  now: new Date(),
});
const decide = (c: WebhookCommand) => webhookDecider.decide(c, webhookDecider.initialState);
const problem = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof DomainError ? err.type : "thrown";
  }
  return "accepted";
};

describe("webhook rules at their edges", () => {
  it("name: 1 and 255 characters, not 0, blank or 256", () => {
    expect(problem(() => decide(create({ name: "x" })))).toBe("accepted");
    expect(problem(() => decide(create({ name: "é".repeat(255) })))).toBe("accepted");
    expect(problem(() => decide(create({ name: "x".repeat(256) })))).toBe("invalid-request");
    expect(problem(() => decide(create({ name: "" })))).toBe("invalid-request");
    expect(problem(() => decide(create({ name: "  " })))).toBe("invalid-request");
  });
  it("timeout_ms: 1000 to 60000", () => {
    for (const [ms, want] of [
      [999, "invalid-request"],
      [1000, "accepted"],
      [60000, "accepted"],
      [60001, "invalid-request"],
      [1500.5, "invalid-request"],
    ] as const)
      expect(problem(() => decide(create({ timeout_ms: ms })))).toBe(want);
  });
  it("headers: up to 20, valid names, no connection-management or delivery headers", () => {
    const n = (k: number) =>
      Object.fromEntries(Array.from({ length: k }, (_, i) => [`X-H${i}`, "v"]));
    expect(problem(() => decide(create({ headers: {} })))).toBe("accepted");
    expect(problem(() => decide(create({ headers: n(1) })))).toBe("accepted");
    expect(problem(() => decide(create({ headers: n(20) })))).toBe("accepted");
    expect(problem(() => decide(create({ headers: n(21) })))).toBe("invalid-request");
    for (const bad of [
      "Host",
      "content-length",
      "Connection",
      "Transfer-Encoding",
      "Authorization",
      "webhook-signature",
      "X-Arize-Webhook-Id",
      "bad name",
      "x:y",
      "",
    ])
      expect(
        problem(() => decide(create({ headers: { [bad]: "v" } }))),
        bad,
      ).toBe("invalid-request");
    expect(problem(() => decide(create({ headers: { "X-A": "a\r\nX-B: b" } })))).toBe(
      "invalid-request",
    );
    expect(problem(() => decide(create({ headers: { "X-A": "a", "x-a": "b" } })))).toBe(
      "invalid-request",
    );
  });
  it("an auth_token only with BEARER; the auth type never changes", () => {
    expect(problem(() => decide(create({ has_auth_token: true }, "HMAC_SHA256")))).toBe(
      "invalid-request",
    );
    const [created] = decide(create({}, "HMAC_SHA256"));
    const state = webhookDecider.evolve(webhookDecider.initialState, created!);
    expect(
      problem(() =>
        webhookDecider.decide(
          { type: "UpdateWebhook", changes: { has_auth_token: true }, now: new Date() },
          state,
        ),
      ),
    ).toBe("invalid-request");
    const [updated] = webhookDecider.decide(
      { type: "UpdateWebhook", changes: { name: "renamed" }, now: new Date() },
      state,
    );
    expect(updated).toMatchObject({
      type: "WebhookUpdated",
      data: { name: "renamed", url: settings.url },
    });
  });
});

describe("subscription events belong to their source type", () => {
  it("pairs each event with its sources only (422 otherwise)", () => {
    expect(requireEventOfSource("PROMPT", "PROMPT_VERSION_LABELED")).toEqual({
      sourceType: "PROMPT",
      event: "PROMPT_VERSION_LABELED",
    });
    expect(requireEventOfSource("SPACE", "ONLINE_TASK_RUN_FAILED").sourceType).toBe("SPACE");
    for (const [s, e] of [
      ["PROMPT", "EVALUATOR_VERSION_CREATED"],
      ["EVALUATOR", "PROMPT_VERSION_CREATED"],
      ["SPACE", "PROMPT_VERSION_CREATED"],
      ["ONLINE_TASK", "EVALUATOR_VERSION_CREATED"],
      ["DATASET", "PROMPT_VERSION_CREATED"],
      ["PROMPT", "NOPE"],
    ])
      expect(
        problem(() => requireEventOfSource(s!, e!)),
        `${s} ${e}`,
      ).toBe("unprocessable-entity");
  });
});
