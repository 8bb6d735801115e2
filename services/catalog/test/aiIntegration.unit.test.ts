import { describe, expect, it } from "vitest";
import type { AiIntegrationConfig, AiIntegrationEvent } from "@argus/contracts";
import {
  aiIntegrationDecider,
  type AiIntegrationCommand,
} from "../src/aiIntegrations/aiIntegrationDecider.ts";
import { keyHint } from "../src/aiIntegrations/aiIntegrationConfigRules.ts";
import { problem, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
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
): AiIntegrationCommand => ({
  type: "CreateAiIntegration",
  id: "i1",
  accountId: "a1",
  config: config(over),
  apiKey,
  userId: "u1",
  now,
});
const update = (
  changes: Partial<AiIntegrationConfig>,
  apiKey: string | null | undefined,
): AiIntegrationCommand => ({ type: "UpdateAiIntegration", changes, apiKey, now });
const del: AiIntegrationCommand = { type: "DeleteAiIntegration", now };
const leave = (spaceId: string): AiIntegrationCommand => ({
  type: "RemoveSpaceScopings",
  spaceId,
  now,
});

const { given, history } = scenario(aiIntegrationDecider);
const nothing: AiIntegrationEvent[] = [];
const key = { has_api_key: true, api_key_hint: "…abcd" };

describe("AI integration decider", () => {
  it("the key never enters an event: only whether one is set and its hint", () => {
    const events = given(nothing).when(create());
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject(key);
    expect(JSON.stringify(events)).not.toContain("sk-0123456789");
  });

  it("hints reveal four characters only of keys of 12 or more", () => {
    expect(keyHint("123456789012")).toBe("…9012");
    expect(keyHint("12345678901")).toBe("…");
    // Counted and cut in code points: an emoji is never split into a lone surrogate.
    expect(keyHint("abcdefghijkl\ud83c\udf89xyz")).toBe("…🎉xyz");
    expect(keyHint("abcdefghij🎉")).toBe("…");
  });

  it("provider rules: AWS_BEDROCK with role auth needs role_arn, VERTEX_AI its three fields, unknown providers are invalid", () => {
    const c = (over: Partial<AiIntegrationConfig>) =>
      problem(() => given(nothing).when(create(over)));
    expect(c({ provider: "AWS_BEDROCK" })).toBe("invalid-request");
    // A bearer token or a proxy needs no role.
    expect(c({ provider: "AWS_BEDROCK", auth_type: "BEARER_TOKEN" })).toBe("none");
    expect(c({ provider: "AWS_BEDROCK", auth_type: "PROXY_WITH_HEADERS" })).toBe("none");
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
    expect(problem(() => given(nothing).when(create({ headers: headers(8175) })))).toBe("none");
    expect(problem(() => given(nothing).when(create({ headers: headers(8176) })))).toBe(
      "invalid-request",
    );
  });

  it("update: needs a change, keeps the key unless given, null removes it", () => {
    const created = history(create());
    const upd = (changes: Partial<AiIntegrationConfig>, apiKey: string | null | undefined) =>
      given(created).when(update(changes, apiKey));
    expect(problem(() => upd({}, undefined))).toBe("invalid-request");
    expect(upd({ name: "renamed" }, undefined)[0]!.data).toMatchObject({
      name: "renamed",
      ...key,
    });
    expect(upd({}, null)[0]!.data).toMatchObject({ has_api_key: false, api_key_hint: "" });
    expect(problem(() => upd({}, " "))).toBe("invalid-request");
  });

  it("update: merges provider metadata key by key into the state it lands on; a required model source is judged there", () => {
    const updating = (
      extra: { metadataMerge?: Record<string, unknown>; requireModelSource?: boolean },
      changes: Partial<AiIntegrationConfig> = {},
    ): AiIntegrationCommand => ({
      ...extra,
      type: "UpdateAiIntegration",
      changes,
      apiKey: undefined,
      now,
    });
    const vertex = { kind: "GCP", project_id: "p", location: "l", project_access_label: "a" };
    const created = history(create({ provider: "VERTEX_AI", provider_metadata: vertex }));
    // Two updates read the same state; each merges only its own key, so both land.
    const moved = given(created).when(updating({ metadataMerge: { location: "eu" } }));
    const both = given([...created, ...moved]).when(
      updating({ metadataMerge: { project_id: "q" } }),
    );
    expect(both[0]!.data).toMatchObject({
      provider_metadata: { ...vertex, location: "eu", project_id: "q" },
    });

    const nim = history(
      create({ provider: "NVIDIA_NIM", base_url: "https://nim.example", model_names: ["m"] }),
    );
    const needing = (changes: Partial<AiIntegrationConfig>, requireModelSource: boolean) =>
      problem(() => given(nim).when(updating({ requireModelSource }, changes)));
    expect(needing({ model_names: [] }, true)).toBe("unprocessable-entity");
    expect(needing({ model_names: [] }, false)).toBe("none");
    expect(needing({ model_names: [], enable_default_models: true }, true)).toBe("none");
  });

  it("given a deleted integration: update → 404, delete → 404", () => {
    const deleted = history(create(), del);
    expect(problem(() => given(deleted).when(update({ name: "x" }, undefined)))).toBe(
      "resource-not-found",
    );
    expect(problem(() => given(deleted).when(del))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(leave("s")))).toBe("resource-not-found");
  });

  describe("a deleted space leaving its scopings", () => {
    const doomed = { organization_id: "o", space_id: "doomed" };
    const kept = { organization_id: "o", space_id: "kept" };

    it("removes only the space's scopings from an integration that keeps others", () => {
      const both = history(create({ scopings: [doomed, kept] }));
      expect(given(both).when(leave("doomed"))).toEqual([
        {
          type: "AiIntegrationUpdated",
          data: { id: "i1", ...config({ scopings: [kept] }), ...key, updated_at: at },
        },
      ]);
    });

    it("deletes an integration scoped only to the space (no scoping would mean account-wide)", () => {
      const only = history(create({ scopings: [{ organization_id: null, space_id: "doomed" }] }));
      expect(given(only).when(leave("doomed"))).toEqual([
        { type: "AiIntegrationDeleted", data: { id: "i1", deleted_at: at } },
      ]);
    });

    it("leaves an integration that does not name the space as it is", () => {
      expect(given(history(create({ scopings: [kept] }))).when(leave("doomed"))).toEqual([]);
      expect(given(history(create())).when(leave("doomed"))).toEqual([]);
    });
  });
});
