import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

let api: Api;
let spaceId: string;
let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}`;

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
});
afterAll(() => api?.stop());

const create = (body: Json) => api.req("POST", "/v2/integrations", { body });
const llm = (config: Json, extra: Json = {}) =>
  create({ type: "LLM", name: unique("llm"), config, ...extra });
const SCHEMA = {
  type: "object",
  properties: { question: { type: "string" }, temperature: { type: "number" } },
  required: ["question"],
};
/** The bytes of `{"type":"object","description":""}`, around a description of n bytes. */
const SCHEMA_FRAME = JSON.stringify({ type: "object", description: "" }).length;
const agent = (extra: Json = {}, config: Json = {}) =>
  create({
    type: "AGENT",
    name: unique("agent"),
    config: { endpoint: "https://agent.example.com/run", input_schema: SCHEMA, ...config },
    ...extra,
  });
const evaluator = (extra: Json = {}, config: Json = {}) =>
  create({
    type: "EVALUATOR",
    name: unique("evaluator"),
    config: { endpoint: "https://eval.example.com/evaluate", input_schema: SCHEMA, ...config },
    ...extra,
  });

describe("LLM integrations: the AI integrations in the public per-provider shapes", () => {
  it("creates, reads under one id in both groups, updates and deletes; secrets never come back", async () => {
    const res = await llm({ provider: "OPEN_AI", api_key: "sk-llm-secret-0123456789" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: "LLM",
      scopings: [],
      config: { provider: "OPEN_AI", has_api_key: true, is_function_calling_enabled: true },
    });
    expect(Object.keys(res.body.config).sort()).toEqual([
      "has_api_key",
      "is_function_calling_enabled",
      "provider",
    ]);
    const id = res.body.id;
    const ai = await api.req("GET", `/v2/ai-integrations/${id}`);
    expect(ai.body).toMatchObject({ id, name: res.body.name, provider: "OPEN_AI" });
    expect((await api.req("GET", `/v2/integrations/${id}`)).body).toEqual(res.body);

    const patched = await api.req("PATCH", `/v2/integrations/${id}`, {
      body: { type: "LLM", name: "renamed-llm", config: { api_key: null } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "renamed-llm", config: { has_api_key: false } });
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${id}`, {
        body: { type: "LLM", config: { provider: "ANTHROPIC" } },
      }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${id}`, { body: { type: "AGENT", name: "x" } }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${id}`, {
        body: { type: "LLM", config: { base_url: "https://x.example.com" } },
      }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${id}`, { body: { type: "LLM" } }),
      400,
      "invalid-request",
    );
    expect((await api.req("DELETE", `/v2/integrations/${id}`)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/integrations/${id}`), 404, "resource-not-found");
    expectProblem(await api.req("GET", `/v2/ai-integrations/${id}`), 404, "resource-not-found");
  });

  it.each([
    [
      "ANTHROPIC",
      { provider: "ANTHROPIC", api_key: "k", base_url: "https://a.example.com/v1" },
      {
        has_api_key: true,
        base_url: "https://a.example.com/v1",
        is_function_calling_enabled: true,
      },
    ],
    ["GEMINI", { provider: "GEMINI", api_key: "k" }, { has_api_key: true }],
    [
      "FIREWORKS",
      { provider: "FIREWORKS", api_key: "k", model_names: ["m1"] },
      { has_api_key: true, model_names: ["m1"], is_default_models_enabled: false },
    ],
    [
      "TOGETHER_AI",
      { provider: "TOGETHER_AI", api_key: "k", is_default_models_enabled: true },
      { has_api_key: true, model_names: [], is_default_models_enabled: true },
    ],
    [
      "LITELLM",
      {
        provider: "LITELLM",
        api_key: "k",
        base_url: "https://litellm.example.com",
        headers: { "x-team": "secret-value" },
      },
      { has_api_key: true, base_url: "https://litellm.example.com", header_names: ["x-team"] },
    ],
    [
      "NVIDIA_NIM",
      { provider: "NVIDIA_NIM", model_names: ["llama"] },
      { has_api_key: false, base_url: null, header_names: [], model_names: ["llama"] },
    ],
    [
      "VERTEX_AI",
      {
        provider: "VERTEX_AI",
        project_id: "p",
        location: "us-central1",
        project_access_label: "l",
      },
      { project_id: "p", location: "us-central1", project_access_label: "l" },
    ],
    [
      "AWS_BEDROCK role",
      {
        provider: "AWS_BEDROCK",
        auth: { auth_type: "DEFAULT", role_arn: "arn:aws:iam::1:role/r" },
        is_default_models_enabled: true,
      },
      {
        auth: {
          auth_type: "DEFAULT",
          role_arn: "arn:aws:iam::1:role/r",
          external_id: null,
          base_url: null,
        },
      },
    ],
    [
      "AWS_BEDROCK bearer",
      {
        provider: "AWS_BEDROCK",
        auth: { auth_type: "BEARER_TOKEN", api_key: "tok" },
        model_names: ["claude"],
      },
      { auth: { auth_type: "BEARER_TOKEN", has_api_key: true, base_url: null } },
    ],
    [
      "AWS_BEDROCK proxy",
      {
        provider: "AWS_BEDROCK",
        auth: {
          auth_type: "PROXY_WITH_HEADERS",
          base_url: "https://proxy.example.com",
          headers: { h: "v" },
        },
        model_names: ["claude"],
      },
      {
        auth: {
          auth_type: "PROXY_WITH_HEADERS",
          base_url: "https://proxy.example.com",
          header_names: ["h"],
        },
      },
    ],
    [
      "CUSTOM oauth2",
      {
        provider: "CUSTOM",
        base_url: "https://llm.example.com/v1",
        model_names: ["m"],
        auth: {
          auth_type: "OAUTH2_CLIENT_CREDENTIALS",
          token_url: "https://auth.example.com/token",
          client_id: "client",
          client_secret: "client-secret-value",
          scopes: "a b",
        },
      },
      {
        has_api_key: false,
        auth: {
          auth_type: "OAUTH2_CLIENT_CREDENTIALS",
          token_url: "https://auth.example.com/token",
          client_id: "client",
          has_client_secret: true,
          scopes: "a b",
          audience: null,
        },
      },
    ],
  ])("%s: the config reads back in its provider's shape", async (_, config, expected) => {
    const res = await llm(config);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.config).toMatchObject({ provider: config.provider, ...expected });
    expect(JSON.stringify(res.body)).not.toMatch(/secret-value|"k"|"tok"/);
    expect((await api.req("GET", `/v2/integrations/${res.body.id}`)).body).toEqual(res.body);
  });

  it("keeps a model source on providers that need one, merges Vertex fields, swaps auth", async () => {
    expectProblem(
      await llm({ provider: "CUSTOM", base_url: "https://llm.example.com" }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await llm({
        provider: "CUSTOM",
        base_url: "https://llm.example.com",
        model_names: ["m"],
        api_key: "k",
        auth: { auth_type: "DEFAULT", api_key: "k" },
      }),
      422,
      "unprocessable-entity",
    );
    const vertex = await llm({
      provider: "VERTEX_AI",
      project_id: "p",
      location: "us-central1",
      project_access_label: "l",
    });
    const moved = await api.req("PATCH", `/v2/integrations/${vertex.body.id}`, {
      body: { type: "LLM", config: { location: "europe-west4" } },
    });
    expect(moved.body.config).toEqual({
      provider: "VERTEX_AI",
      project_id: "p",
      location: "europe-west4",
      project_access_label: "l",
    });

    const custom = await llm({
      provider: "CUSTOM",
      base_url: "https://llm.example.com",
      model_names: ["m"],
      api_key: "key-1",
    });
    expect(custom.body.config.auth).toEqual({ auth_type: "DEFAULT", has_api_key: true });
    const oauth = await api.req("PATCH", `/v2/integrations/${custom.body.id}`, {
      body: {
        type: "LLM",
        config: {
          auth: {
            auth_type: "OAUTH2_CLIENT_CREDENTIALS",
            token_url: "https://auth.example.com/token",
            client_id: "c",
            client_secret: "s",
          },
        },
      },
    });
    expect(oauth.body.config).toMatchObject({
      has_api_key: false,
      auth: { auth_type: "OAUTH2_CLIENT_CREDENTIALS", has_client_secret: true },
    });
    // Back to API keys without one: the client secret does not become a key.
    const back = await api.req("PATCH", `/v2/integrations/${custom.body.id}`, {
      body: { type: "LLM", config: { auth: { auth_type: "DEFAULT" } } },
    });
    expect(back.body.config).toMatchObject({
      has_api_key: false,
      auth: { auth_type: "DEFAULT", has_api_key: false },
    });
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${custom.body.id}`, {
        body: { type: "LLM", config: { model_names: [] } },
      }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${custom.body.id}`, {
        body: { type: "LLM", config: { base_url: null } },
      }),
      422,
      "unprocessable-entity",
    );
  });

  it("an AZURE_OPEN_AI AI integration is not an LLM integration of this group", async () => {
    const azure = await api.req("POST", "/v2/ai-integrations", {
      body: { name: unique("azure"), provider: "AZURE_OPEN_AI", base_url: "https://a.example.com" },
    });
    expect(azure.status).toBe(201);
    expectProblem(
      await api.req("GET", `/v2/integrations/${azure.body.id}`),
      404,
      "resource-not-found",
    );
    const all = await api.req("GET", "/v2/integrations?type=LLM&limit=100");
    expect(all.body.integrations.map((i: Json) => i.id)).not.toContain(azure.body.id);
  });
});

describe("AGENT and EVALUATOR integrations", () => {
  it("creates an agent with write-only headers and presets; presets replace by name", async () => {
    const res = await agent(
      { description: "the support bot", scopings: [{ space_id: spaceId }] },
      {
        headers: { authorization: "Bearer agent-secret-value" },
        request_presets: [
          { name: "short", config: { question: "hi" } },
          { name: "warm", description: "high temperature", config: { temperature: 1.5 } },
        ],
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      type: "AGENT",
      description: "the support bot",
      scopings: [{ space_id: spaceId }],
      config: {
        endpoint: "https://agent.example.com/run",
        has_headers: true,
        input_schema: SCHEMA,
        request_presets: [
          { name: "short", description: null, config: { question: "hi" } },
          { name: "warm", description: "high temperature", config: { temperature: 1.5 } },
        ],
      },
    });
    expect(JSON.stringify(res.body)).not.toContain("agent-secret-value");
    const [short, warm] = res.body.config.request_presets;
    expect(short.id).not.toBe(warm.id);

    const patched = await api.req("PATCH", `/v2/integrations/${res.body.id}`, {
      body: {
        type: "AGENT",
        description: null,
        config: {
          headers: null,
          request_presets: [
            { name: "warm", description: "high temperature", config: { temperature: 1.5 } },
            { name: "new", config: { question: "?" } },
          ],
        },
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.description).toBeNull();
    expect(patched.body.config.has_headers).toBe(false);
    const presets = patched.body.config.request_presets;
    expect(presets.map((p: Json) => p.name)).toEqual(["warm", "new"]);
    expect(presets[0]).toEqual(warm);
    expect(presets[1].id).not.toBe(short.id);

    expectProblem(
      await api.req("PATCH", `/v2/integrations/${res.body.id}`, {
        body: {
          type: "AGENT",
          config: { request_presets: [{ name: "x", config: { temperature: "hot" } }] },
        },
      }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${res.body.id}`, {
        body: { type: "EVALUATOR", name: "x" },
      }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await api.req("PATCH", `/v2/integrations/${res.body.id}`, { body: { type: "AGENT" } }),
      400,
      "invalid-request",
    );
  });

  it("an evaluator's schema is an object without arize_metadata; endpoints are public https", async () => {
    expect((await evaluator()).status).toBe(201);
    for (const input_schema of [
      { type: "array" },
      { type: "object", properties: { arize_metadata: { type: "object" } } },
      { type: "object", properties: { a: { type: "no-such-type" } } },
    ])
      expectProblem(await evaluator({}, { input_schema }), 422, "unprocessable-entity");
    expectProblem(
      await evaluator({}, { request_presets: [{ name: "p", config: {} }] }),
      400,
      "invalid-request",
    );
    for (const endpoint of [
      "https://127.0.0.1/evaluate",
      "https://10.1.2.3/evaluate",
      "http://eval.example.com/evaluate",
      "https://user:pw@eval.example.com/",
    ])
      expectProblem(await evaluator({}, { endpoint }), 400, "invalid-request");
  });

  it("enforces the limits at their edges", async () => {
    const edges: [string, () => Promise<{ status: number }>, () => Promise<{ status: number }>][] =
      [
        [
          "name 255/256",
          () => agent({ name: "n".repeat(254) + String(n++ % 10) }),
          () => agent({ name: "n".repeat(256) }),
        ],
        [
          "description 1024/1025",
          () => agent({ description: "d".repeat(1024) }),
          () => agent({ description: "d".repeat(1025) }),
        ],
        [
          "endpoint 2048/2049",
          () => agent({}, { endpoint: `https://agent.example.com/${"p".repeat(2048 - 26)}` }),
          () => agent({}, { endpoint: `https://agent.example.com/${"p".repeat(2049 - 26)}` }),
        ],
        [
          "preset name 255/256",
          () => agent({}, { request_presets: [{ name: "p".repeat(255), config: {} }] }),
          () => agent({}, { request_presets: [{ name: "p".repeat(256), config: {} }] }),
        ],
        [
          "headers 8175/8176 bytes",
          () => agent({}, { headers: { h: "v".repeat(8175 - 8) } }),
          () => agent({}, { headers: { h: "v".repeat(8176 - 8) } }),
        ],
        [
          "input_schema 64 KiB",
          () =>
            agent(
              {},
              { input_schema: { type: "object", description: "s".repeat(65536 - SCHEMA_FRAME) } },
            ),
          () =>
            agent(
              {},
              { input_schema: { type: "object", description: "s".repeat(65537 - SCHEMA_FRAME) } },
            ),
        ],
      ];
    for (const [edge, ok, over] of edges) {
      expect((await ok()).status, edge).toBe(201);
      expect((await over()).status, edge).toBe(400);
    }
    expect((await agent({ name: "" })).status).toBe(400);
  });

  it("names are unique among AGENT and EVALUATOR integrations; LLM names apart", async () => {
    const name = unique("shared");
    expect((await agent({ name })).status).toBe(201);
    expectProblem(await evaluator({ name }), 409, "resource-conflict");
    expect((await llm({ provider: "GEMINI", api_key: "k" }, { name })).status).toBe(201);
  });
});

describe("listing integrations", () => {
  it("pages LLM and AGENT together newest first; EVALUATOR only on request", async () => {
    const prefix = unique("page");
    const made: Json[] = [];
    for (let i = 0; i < 3; i++) {
      made.push(
        (await llm({ provider: "GEMINI", api_key: "k" }, { name: `${prefix}-l${i}` })).body,
      );
      made.push((await agent({ name: `${prefix}-a${i}` })).body);
      made.push((await evaluator({ name: `${prefix}-e${i}` })).body);
    }
    const seen: Json[] = [];
    let cursor = "";
    for (;;) {
      const page = await api.req(
        "GET",
        `/v2/integrations?name=${prefix}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.integrations);
      if (!page.body.pagination.has_more) break;
      cursor = page.body.pagination.next_cursor;
    }
    const shown = made.filter((m) => m.type !== "EVALUATOR").reverse();
    expect(seen.map((s) => s.id)).toEqual(shown.map((m) => m.id));
    const evaluators = await api.req("GET", `/v2/integrations?type=EVALUATOR&name=${prefix}`);
    expect(evaluators.body.integrations.map((e: Json) => e.name)).toEqual([
      `${prefix}-e2`,
      `${prefix}-e1`,
      `${prefix}-e0`,
    ]);
    const llms = await api.req("GET", `/v2/integrations?type=LLM&name=${prefix}`);
    expect(llms.body.integrations.every((e: Json) => e.type === "LLM")).toBe(true);
    expect(llms.body.integrations).toHaveLength(3);
    expectProblem(await api.req("GET", "/v2/integrations?type=NOPE"), 400, "invalid-request");
  });

  it("lists only the types the caller may read; none is 403", async () => {
    const prefix = unique("perm");
    await llm({ provider: "GEMINI", api_key: "k" }, { name: `${prefix}-llm` });
    await agent({ name: `${prefix}-agent` });
    // A service key whose only role in the space reads AGENT and EVALUATOR integrations.
    const role = await api.req("POST", "/v2/roles", {
      body: {
        name: unique("remote-reader"),
        permissions: ["SPACE_READ", "REMOTE_ENDPOINT_INTEGRATION_READ"],
      },
    });
    const orgId = (await api.req("GET", `/v2/spaces/${spaceId}`)).body.organization_id;
    const keyOf = async (roleId: string) =>
      (
        await api.req("POST", "/v2/api-keys", {
          body: {
            key_type: "SERVICE",
            name: unique("lister"),
            organizations: [
              {
                org_id: orgId,
                spaces: [{ space_id: spaceId, role: { type: "CUSTOM", id: roleId } }],
              },
            ],
          },
        })
      ).body.key as string;
    const key = await keyOf(role.body.id);
    const listed = await api.req("GET", `/v2/integrations?name=${prefix}`, { key });
    expect(listed.status).toBe(200);
    expect(listed.body.integrations.map((i: Json) => i.type)).toEqual(["AGENT"]);
    expectProblem(
      await api.req("GET", "/v2/integrations?type=LLM", { key }),
      403,
      "access-forbidden",
    );
    const blind = await api.req("POST", "/v2/roles", {
      body: { name: unique("blind"), permissions: ["SPACE_READ"] },
    });
    expectProblem(
      await api.req("GET", "/v2/integrations", { key: await keyOf(blind.body.id) }),
      403,
      "access-forbidden",
    );
  });
});

describe("REMOTE evaluators run on EVALUATOR integrations", () => {
  it("must name one available in the space; it cannot be deleted while used", async () => {
    const integration = (await evaluator()).body;
    const other = (await agent()).body;
    const remote = (integration_id: string) =>
      api.req("POST", "/v2/evaluators", {
        body: {
          space_id: spaceId,
          name: unique("remote"),
          type: "REMOTE",
          version: { commit_message: "v1", remote_config: { integration_id } },
        },
      });
    for (const bad of [other.id, "not-an-id"])
      expectProblem(await remote(bad), 422, "unprocessable-entity");
    const used = await remote(integration.id);
    expect(used.status, JSON.stringify(used.body)).toBe(201);
    expectProblem(
      await api.req("DELETE", `/v2/integrations/${integration.id}`),
      409,
      "resource-conflict",
    );
    expect((await api.req("DELETE", `/v2/evaluators/${used.body.id}`)).status).toBe(204);
    expect((await api.req("DELETE", `/v2/integrations/${integration.id}`)).status).toBe(204);
    expectProblem(await remote(integration.id), 422, "unprocessable-entity");
  });
});

describe("scopings", () => {
  it("a scoping's space deleted: the integration scoped only there goes with it", async () => {
    const space = await api.req("POST", "/v2/spaces", {
      body: {
        name: unique("doomed"),
        organization_id: (await api.req("GET", `/v2/spaces/${spaceId}`)).body.organization_id,
      },
    });
    expect(space.status).toBe(201);
    const scoped = (await agent({ scopings: [{ space_id: space.body.id }] })).body;
    expect(scoped.scopings).toEqual([{ organization_id: null, space_id: space.body.id }]);
    expect((await api.req("DELETE", `/v2/spaces/${space.body.id}`)).status).toBe(204);
    const deadline = Date.now() + 10_000;
    while ((await api.req("GET", `/v2/integrations/${scoped.id}`)).status !== 404) {
      if (Date.now() > deadline) throw new Error("the scoped integration outlived its space");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
