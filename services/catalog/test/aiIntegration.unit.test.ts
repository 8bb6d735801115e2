import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  aiIntegrationStateOf,
  decideAiIntegration,
  initialAiIntegrationState,
  keyHint,
  type AiIntegrationCommand,
  type AiIntegrationConfig,
} from "../src/domain/aiIntegration.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const config = (over: Partial<AiIntegrationConfig> = {}): AiIntegrationConfig => ({
  name: "prod",
  provider: "OPEN_AI",
  base_url: null,
  model_names: [],
  headers: null,
  enable_default_models: false,
  function_calling_enabled: true,
  auth_type: "DEFAULT",
  provider_metadata: null,
  scopings: [],
  ...over,
});
const create = (
  over: Partial<AiIntegrationConfig> = {},
  apiKey: string | null = "sk-0123456789-abcd",
) =>
  ({
    type: "CreateAiIntegration",
    id: "i1",
    accountId: "a1",
    config: config(over),
    apiKey,
    userId: "u1",
    now,
  }) satisfies AiIntegrationCommand;
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};

describe("AI integration decider", () => {
  it("the key never enters an event: only whether one is set and its hint", () => {
    const events = decideAiIntegration(create(), initialAiIntegrationState);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ has_api_key: true, api_key_hint: "…abcd" });
    expect(JSON.stringify(events)).not.toContain("sk-0123456789");
  });

  it("hints reveal four characters only of keys of 12 or more", () => {
    expect(keyHint("123456789012")).toBe("…9012");
    expect(keyHint("12345678901")).toBe("…");
  });

  it("provider rules: AWS_BEDROCK needs role_arn, VERTEX_AI its three fields, unknown providers are invalid", () => {
    const c = (over: Partial<AiIntegrationConfig>) =>
      problem(() => decideAiIntegration(create(over), initialAiIntegrationState));
    expect(c({ provider: "AWS_BEDROCK" })).toBe("invalid-request");
    expect(
      c({ provider: "AWS_BEDROCK", provider_metadata: { kind: "AWS", role_arn: "arn" } }),
    ).toBe("none");
    expect(
      c({ provider: "VERTEX_AI", provider_metadata: { project_id: "p", location: "l" } }),
    ).toBe("invalid-request");
    expect(
      c({
        provider: "VERTEX_AI",
        provider_metadata: { project_id: "p", location: "l", project_access_label: "x" },
      }),
    ).toBe("none");
    expect(c({ provider: "NOPE" })).toBe("invalid-request");
    expect(c({ auth_type: "NOPE" })).toBe("invalid-request");
    expect(c({ base_url: "ftp://x" })).toBe("invalid-request");
  });

  it("headers: 8175 serialized bytes pass, 8176 are invalid", () => {
    // {"h":"…"} is 8 bytes of JSON around the value.
    const headers = (n: number) => ({ h: "x".repeat(n - 8) });
    expect(
      problem(() =>
        decideAiIntegration(create({ headers: headers(8175) }), initialAiIntegrationState),
      ),
    ).toBe("none");
    expect(
      problem(() =>
        decideAiIntegration(create({ headers: headers(8176) }), initialAiIntegrationState),
      ),
    ).toBe("invalid-request");
  });

  it("update: needs a change, keeps the key unless given, null removes it", () => {
    const state = aiIntegrationStateOf(decideAiIntegration(create(), initialAiIntegrationState));
    const upd = (changes: Partial<AiIntegrationConfig>, apiKey: string | null | undefined) =>
      decideAiIntegration({ type: "UpdateAiIntegration", changes, apiKey, now }, state);
    expect(problem(() => upd({}, undefined))).toBe("invalid-request");
    expect(upd({ name: "renamed" }, undefined)[0]!.data).toMatchObject({
      name: "renamed",
      has_api_key: true,
      api_key_hint: "…abcd",
    });
    expect(upd({}, null)[0]!.data).toMatchObject({ has_api_key: false, api_key_hint: "" });
    expect(problem(() => upd({}, " "))).toBe("invalid-request");
  });

  it("deleted integrations are not found", () => {
    const created = decideAiIntegration(create(), initialAiIntegrationState);
    const state = aiIntegrationStateOf(created);
    const deleted = aiIntegrationStateOf([
      ...created,
      ...decideAiIntegration({ type: "DeleteAiIntegration", now }, state),
    ]);
    expect(problem(() => decideAiIntegration({ type: "DeleteAiIntegration", now }, deleted))).toBe(
      "resource-not-found",
    );
  });
});
