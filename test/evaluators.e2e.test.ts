import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createClient,
  createCodeEvaluator,
  createTemplateEvaluator,
  createTemplateEvaluatorVersion,
  deleteEvaluator,
  getEvaluator,
  getEvaluatorVersion,
  listEvaluatorVersions,
  listEvaluators,
  updateEvaluator,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api } from "./support.ts";

let api: Api;
let spaceId: string;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });

const templateConfig = {
  name: "hallucination",
  template: "Given {input} and {output}, is the output a hallucination?",
  includeExplanations: true,
  useFunctionCallingIfAvailable: true,
  classificationChoices: { hallucinated: 0, factual: 1 },
  llmConfig: {
    aiIntegrationId: "TGxtSW50ZWdyYXRpb246MTI6YUJjRA==",
    modelName: "gpt-4o",
    invocationParameters: { temperature: 0 },
    providerParameters: {},
  },
};
const rawTemplate = {
  name: "relevance",
  template: "Is {output} relevant?",
  include_explanations: false,
  use_function_calling_if_available: false,
  classification_choices: { relevant: 1, irrelevant: 0 },
  llm_config: {
    ai_integration_id: "TGxtSW50ZWdyYXRpb246MTI6YUJjRA==",
    model_name: "gpt-4o",
    invocation_parameters: {},
    provider_parameters: {},
  },
};

beforeAll(async () => {
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  // Templates must name an AI integration applying to their space: an account-wide one.
  const ai = await api.req("POST", "/v2/ai-integrations", {
    body: { name: "evaluators e2e", provider: "OPEN_AI" },
  });
  expect(ai.status).toBe(201);
  templateConfig.llmConfig.aiIntegrationId = ai.body.id;
  rawTemplate.llm_config.ai_integration_id = ai.body.id;
});
afterAll(() => api?.stop());

describe("evaluators through @arizeai/ax-client", () => {
  it("creates template and code evaluators, versions them, and the latest is the default", async () => {
    const client = ax();
    const created = await createTemplateEvaluator({
      client,
      space: spaceId,
      name: "Hallucination Detector",
      description: "checks facts",
      commitMessage: "Initial version",
      templateConfig,
    });
    expect(created).toMatchObject({
      name: "Hallucination Detector",
      type: "TEMPLATE",
      spaceId,
      description: "checks facts",
    });
    expect(created.version).toMatchObject({ type: "TEMPLATE", commitMessage: "Initial version" });
    if (created.version.type !== "TEMPLATE") throw new Error("not a template version");
    expect(created.version.templateConfig).toMatchObject({
      name: "hallucination",
      direction: "MAXIMIZE",
      dataGranularity: "SPAN",
      classificationChoices: { hallucinated: 0, factual: 1 },
    });

    const v2 = await createTemplateEvaluatorVersion({
      client,
      evaluator: created.id,
      commitMessage: "Stricter",
      templateConfig: { ...templateConfig, direction: "MINIMIZE" },
    });
    expect((await getEvaluator({ client, evaluator: created.id })).version.id).toBe(v2.id);
    expect(
      (await getEvaluator({ client, evaluator: created.id, versionId: created.version.id })).version
        .commitMessage,
    ).toBe("Initial version");
    expect((await getEvaluatorVersion({ client, versionId: v2.id })).evaluatorId).toBe(created.id);
    const versions = await listEvaluatorVersions({ client, evaluator: created.id, limit: 1 });
    expect(versions.data.map((v) => v.id)).toEqual([v2.id]);
    expect(versions.pagination.hasMore).toBe(true);

    const byName = await getEvaluator({
      client,
      evaluator: "Hallucination Detector",
      space: spaceId,
    });
    expect(byName.id).toBe(created.id);

    const code = await createCodeEvaluator({
      client,
      space: spaceId,
      name: "Exact",
      commitMessage: "managed",
      codeConfig: {
        type: "MANAGED",
        name: "exact_match",
        managedEvaluator: "EXACT_MATCH",
        variables: ["output", "expected"],
      },
    });
    expect(code.type).toBe("CODE");
    if (code.version.type !== "CODE") throw new Error("not a code version");
    expect(code.version.codeConfig).toMatchObject({
      type: "MANAGED",
      managedEvaluator: "EXACT_MATCH",
    });

    const renamed = await updateEvaluator({ client, evaluator: code.id, name: "Exact match" });
    expect(renamed.name).toBe("Exact match");
    const listed = await listEvaluators({ client, space: spaceId, name: "exact" });
    expect(listed.data.map((e) => e.id)).toEqual([code.id]);

    await deleteEvaluator({ client, evaluator: code.id });
    expectProblem(await api.req("GET", `/v2/evaluators/${code.id}`), 404, "resource-not-found");
  });
});

describe("evaluators over plain HTTP: edges", () => {
  const create = (name: string, extra: Record<string, unknown> = {}) =>
    api.req("POST", "/v2/evaluators", {
      body: {
        space_id: spaceId,
        name,
        type: "TEMPLATE",
        version: { commit_message: "c", template_config: rawTemplate },
        ...extra,
      },
    });

  it("duplicate names are 409; a type/config mismatch or HARNESS is 400; system fields 400", async () => {
    expect((await create("dup-eval")).status).toBe(201);
    expectProblem(await create("dup-eval"), 409, "resource-conflict");
    expectProblem(await create("mismatch", { type: "CODE" }), 400, "invalid-request");
    expectProblem(await create("harness", { type: "HARNESS" }), 400, "invalid-request");
    expectProblem(await create("sys", { id: "x" }), 400, "invalid-request");
    expectProblem(
      await create("badcol", {
        version: { commit_message: "c", template_config: { ...rawTemplate, name: "bad/col" } },
      }),
      400,
      "invalid-request",
    );
  });

  it("llm_config.ai_integration_id must name an integration applying to the space (422)", async () => {
    const orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
    const other = await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "evaluators other space" },
    });
    const scoped = async (space: string) =>
      (
        await api.req("POST", "/v2/ai-integrations", {
          body: {
            name: `scoped ${space}`,
            provider: "OPEN_AI",
            scopings: [{ organization_id: orgId, space_id: space }],
          },
        })
      ).body.id as string;
    const naming = (id: string) => ({
      version: {
        commit_message: "c",
        template_config: {
          ...rawTemplate,
          llm_config: { ...rawTemplate.llm_config, ai_integration_id: id },
        },
      },
    });
    expect((await create("ai-here", naming(await scoped(spaceId)))).status).toBe(201);
    const elsewhere = await scoped(other.body.id);
    expectProblem(await create("ai-elsewhere", naming(elsewhere)), 422, "unprocessable-entity");
    expectProblem(
      await create("ai-unknown", naming("TGxtSW50ZWdyYXRpb246MTI6YUJjRA==")),
      422,
      "unprocessable-entity",
    );
    const ok = (await create("ai-versions")).body;
    expectProblem(
      await api.req("POST", `/v2/evaluators/${ok.id}/versions`, {
        body: naming(elsewhere).version,
      }),
      422,
      "unprocessable-entity",
    );
  });

  it("update needs a field; renaming onto a taken name is 409; limit edges", async () => {
    const a = (await create("upd-a")).body;
    await create("upd-b");
    expectProblem(
      await api.req("PATCH", `/v2/evaluators/${a.id}`, { body: {} }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/evaluators/${a.id}`, { body: { name: "upd-b" } }),
      409,
      "resource-conflict",
    );
    expectProblem(await api.req("GET", "/v2/evaluators?limit=0"), 400, "invalid-request");
    expectProblem(await api.req("GET", "/v2/evaluators?limit=101"), 400, "invalid-request");
    expect((await api.req("GET", "/v2/evaluators?limit=1")).body.evaluators).toHaveLength(1);
    expect((await api.req("GET", "/v2/evaluators?limit=100")).status).toBe(200);
    expectProblem(
      await api.req("GET", `/v2/evaluator-versions/${a.id}`),
      404,
      "resource-not-found",
    );
  });
});
