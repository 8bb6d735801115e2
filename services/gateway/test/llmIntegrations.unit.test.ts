import { describe, expect, it } from "vitest";
import type { DomainError } from "@argus/platform";
import type { AiIntegration, AiIntegrationConfig } from "@argus/proto/catalog/v1/ai_integrations";
import { createLlm, toLlmIntegration, updateLlm } from "../src/routes/llmIntegrations.ts";

const stored = (config: Partial<AiIntegrationConfig>, hasApiKey = true): AiIntegration => ({
  id: "0190b1a0-0000-7000-8000-000000000001",
  config: {
    name: "n",
    provider: "OPEN_AI",
    modelNames: [],
    enableDefaultModels: false,
    functionCallingEnabled: true,
    authType: "DEFAULT",
    scopings: [],
    ...config,
  },
  hasApiKey,
  apiKeyHint: "",
  createdByUserId: "",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});
const kind = (f: () => unknown) => {
  try {
    f();
    return "none";
  } catch (e) {
    return (e as DomainError).type;
  }
};

describe("LLM integrations as AI integrations", () => {
  it("a create maps each auth to its type, secret, address and metadata", () => {
    const bedrock = createLlm("b", [], {
      provider: "AWS_BEDROCK",
      auth: { auth_type: "PROXY_WITH_HEADERS", base_url: "https://p", headers: { h: "v" } },
      model_names: ["m"],
    });
    expect(bedrock).toMatchObject({
      apiKey: null,
      config: { authType: "PROXY_WITH_HEADERS", baseUrl: "https://p", headersJson: '{"h":"v"}' },
    });
    const oauth = createLlm("c", [], {
      provider: "CUSTOM",
      base_url: "https://c",
      is_default_models_enabled: true,
      auth: {
        auth_type: "OAUTH2_CLIENT_CREDENTIALS",
        token_url: "https://t",
        client_id: "id",
        client_secret: "s",
      },
    });
    expect(oauth.apiKey).toBe("s");
    expect(JSON.parse(oauth.config.providerMetadataJson!)).toEqual({
      kind: "OAUTH2",
      token_url: "https://t",
      client_id: "id",
      scopes: null,
      audience: null,
    });
    // Read back: the client secret is not an API key.
    const read = toLlmIntegration(stored(oauth.config));
    expect(read.config).toMatchObject({
      has_api_key: false,
      auth: { auth_type: "OAUTH2_CLIENT_CREDENTIALS", has_client_secret: true },
    });
    expect(kind(() => createLlm("x", [], { provider: "NVIDIA_NIM" }))).toBe("unprocessable-entity");
  });

  it("an update: immutable provider, fields of its provider only, at least one field", () => {
    const openai = stored({ provider: "OPEN_AI" });
    expect(kind(() => updateLlm(openai, { config: { provider: "GEMINI" } }))).toBe(
      "unprocessable-entity",
    );
    expect(kind(() => updateLlm(openai, { config: { model_names: [] } }))).toBe(
      "unprocessable-entity",
    );
    expect(kind(() => updateLlm(openai, { config: { provider: "OPEN_AI" } }))).toBe(
      "invalid-request",
    );
    expect(updateLlm(openai, { config: { api_key: null } })).toMatchObject({
      fields: ["api_key"],
      apiKey: null,
    });
    expect(updateLlm(openai, { name: "m" })).toMatchObject({ fields: ["name"], apiKey: undefined });
  });

  it("Vertex fields merge one by one; a switch of auth never keeps a client secret as a key", () => {
    const vertex = stored({
      provider: "VERTEX_AI",
      providerMetadataJson: JSON.stringify({
        kind: "GCP",
        project_id: "p",
        location: "l",
        project_access_label: "a",
      }),
    });
    // Only the sent field goes, merged by the catalog into what is stored when it lands.
    const moved = updateLlm(vertex, { config: { location: "eu" } });
    expect(moved.metadataMerge).toEqual({ kind: "GCP", location: "eu" });
    expect(moved.fields).not.toContain("provider_metadata");
    expect(updateLlm(vertex, { name: "n" }).metadataMerge).toBeUndefined();
    const custom = stored({
      provider: "CUSTOM",
      authType: "OAUTH2_CLIENT_CREDENTIALS",
      modelNames: ["m"],
    });
    const back = updateLlm(custom, { config: { auth: { auth_type: "DEFAULT" } } });
    expect(back).toMatchObject({ apiKey: null, config: { authType: "DEFAULT" } });
    expect(back.fields).toEqual(
      expect.arrayContaining(["auth_type", "api_key", "provider_metadata"]),
    );
    expect(back.config.providerMetadataJson).toBeUndefined();
  });
});
