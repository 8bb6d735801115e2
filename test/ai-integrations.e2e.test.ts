import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAiIntegration,
  createClient,
  deleteAiIntegration,
  getAiIntegration,
  listAiIntegrations,
  updateAiIntegration,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api } from "./support.ts";

let api: Api;
let spaceId: string;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });
const SECRET = "sk-test-abcdefghijklmnop-WXYZ";

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
});
afterAll(() => api?.stop());

describe("AI integrations through @arizeai/ax-client", () => {
  it("creates with a write-only key, updates, removes the key, lists and deletes", async () => {
    const client = ax();
    const created = await createAiIntegration({
      client,
      name: "Production OpenAI",
      provider: "OPEN_AI",
      apiKey: SECRET,
      modelNames: ["gpt-4o"],
      enableDefaultModels: true,
      scopings: [{ spaceId }],
    });
    expect(created).toMatchObject({
      name: "Production OpenAI",
      provider: "OPEN_AI",
      hasApiKey: true,
      enableDefaultModels: true,
      functionCallingEnabled: true,
      authType: "DEFAULT",
      modelNames: ["gpt-4o"],
      scopings: [{ spaceId }],
    });
    const raw = await api.req("GET", `/v2/ai-integrations/${created.id}`);
    expect(raw.body.api_key_hint).toBe("…WXYZ");
    expect(JSON.stringify(raw.body)).not.toContain("abcdefghijklmnop");

    const byName = await getAiIntegration({
      client,
      integration: "Production OpenAI",
      space: spaceId,
    });
    expect(byName.id).toBe(created.id);

    const renamed = await updateAiIntegration({
      client,
      integration: created.id,
      name: "OpenAI (prod)",
      headers: { "x-team": "research" },
    });
    expect(renamed).toMatchObject({
      name: "OpenAI (prod)",
      hasApiKey: true,
      headers: { "x-team": "research" },
    });
    const keyless = await updateAiIntegration({ client, integration: created.id, apiKey: null });
    expect(keyless.hasApiKey).toBe(false);

    const listed = await listAiIntegrations({ client, name: "prod" });
    expect(listed.data.map((i) => i.id)).toEqual([created.id]);

    await deleteAiIntegration({ client, integration: created.id });
    expectProblem(
      await api.req("GET", `/v2/ai-integrations/${created.id}`),
      404,
      "resource-not-found",
    );
  });
});

describe("AI integrations over plain HTTP: edges", () => {
  it("names are unique per account (409); provider rules and empty updates are 400", async () => {
    const body = { name: "dup-ai", provider: "ANTHROPIC", api_key: "k".repeat(20) };
    expect((await api.req("POST", "/v2/ai-integrations", { body })).status).toBe(201);
    expectProblem(await api.req("POST", "/v2/ai-integrations", { body }), 409, "resource-conflict");
    expectProblem(
      await api.req("POST", "/v2/ai-integrations", {
        body: { name: "bedrock", provider: "AWS_BEDROCK" },
      }),
      400,
      "invalid-request",
    );
    expect(
      (
        await api.req("POST", "/v2/ai-integrations", {
          body: {
            name: "bedrock",
            provider: "AWS_BEDROCK",
            provider_metadata: { kind: "AWS", role_arn: "arn:aws:iam::1:role/x" },
          },
        })
      ).status,
    ).toBe(201);
    expectProblem(
      await api.req("POST", "/v2/ai-integrations", { body: { name: "nop", provider: "NOPE" } }),
      400,
      "invalid-request",
    );
    const id = (await api.req("GET", "/v2/ai-integrations?name=dup-ai")).body.ai_integrations[0].id;
    expectProblem(
      await api.req("PATCH", `/v2/ai-integrations/${id}`, { body: {} }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/ai-integrations", {
        body: { name: "sys", provider: "OPEN_AI", has_api_key: true },
      }),
      400,
      "invalid-request",
    );
    expectProblem(await api.req("GET", "/v2/ai-integrations?limit=0"), 400, "invalid-request");
  });
});
