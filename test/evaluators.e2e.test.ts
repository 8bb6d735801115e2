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
import { addSpaceUser, identityDb, newUser } from "./identity-fixtures.ts";
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

  it("a commit message is 1 to 1000 characters, on create and on a new version", async () => {
    const version = (commit_message: string) => ({ commit_message, template_config: rawTemplate });
    expectProblem(await create("msg-0", { version: version("") }), 400, "invalid-request");
    expectProblem(
      await create("msg-1001", { version: version("m".repeat(1001)) }),
      400,
      "invalid-request",
    );
    const e = (await create("msg-1", { version: version("m") })).body;
    expect(e.id).toEqual(expect.any(String));
    const add = (message: string) =>
      api.req("POST", `/v2/evaluators/${e.id}/versions`, { body: version(message) });
    expectProblem(await add(""), 400, "invalid-request");
    expectProblem(await add("m".repeat(1001)), 400, "invalid-request");
    expect((await add("m".repeat(1000))).status).toBe(201);
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

describe("DELETE /v2/evaluators/{evaluator_id}/versions", () => {
  const evaluatorWithVersions = async (name: string, extra: number) => {
    const created = await api.req("POST", "/v2/evaluators", {
      body: {
        space_id: spaceId,
        name,
        type: "TEMPLATE",
        version: { commit_message: "v1", template_config: rawTemplate },
      },
    });
    expect(created.status).toBe(201);
    const versions: string[] = [created.body.version.id];
    for (let i = 0; i < extra; i++) {
      const v = await api.req("POST", `/v2/evaluators/${created.body.id}/versions`, {
        body: { commit_message: `v${i + 2}`, template_config: rawTemplate },
      });
      expect(v.status).toBe(201);
      versions.push(v.body.id);
    }
    return { id: created.body.id as string, versions };
  };
  const del = (id: string, body: unknown, key?: string) =>
    api.req("DELETE", `/v2/evaluators/${id}/versions`, { body, key });

  it("deletes the requested versions, reports the others, collapses duplicates; the latest remaining is the default", async () => {
    const e = await evaluatorWithVersions("delete-versions", 2);
    const other = await evaluatorWithVersions("delete-versions-other", 0);
    const [v1, v2, v3] = e.versions as [string, string, string];
    const res = await del(e.id, { version_ids: [v3, v3, other.versions[0]] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      completed: true,
      deleted_version_ids: [v3],
      not_deleted_version_ids: [other.versions[0]],
    });
    expect((await api.req("GET", `/v2/evaluator-versions/${v3}`)).status).toBe(404);
    expect((await api.req("GET", `/v2/evaluators/${e.id}`)).body.version.id).toBe(v2);
    const listed = await api.req("GET", `/v2/evaluators/${e.id}/versions`);
    expect(listed.body.evaluator_versions.map((v: { id: string }) => v.id)).toEqual([v2, v1]);
    // Idempotent: an already deleted version is reported, still 200.
    const again = await del(e.id, { version_ids: [v3, v1] });
    expect(again.body).toEqual({
      completed: true,
      deleted_version_ids: [v1],
      not_deleted_version_ids: [v3],
    });
    expect((await api.req("GET", `/v2/evaluator-versions/${other.versions[0]}`)).status).toBe(200);
  });

  it("deleting every remaining version is 409 and deletes nothing", async () => {
    const e = await evaluatorWithVersions("delete-all-versions", 1);
    expectProblem(await del(e.id, { version_ids: e.versions }), 409, "resource-conflict");
    const listed = await api.req("GET", `/v2/evaluators/${e.id}/versions`);
    expect(listed.body.evaluator_versions).toHaveLength(2);
  });

  it("validation: empty, over 100, missing, not an array or malformed ids are 400; other ids not deleted", async () => {
    const e = await evaluatorWithVersions("delete-versions-400", 0);
    const v = e.versions[0]!;
    expectProblem(await del(e.id, { version_ids: [] }), 400, "invalid-request");
    expectProblem(
      await del(e.id, { version_ids: Array.from({ length: 101 }, () => v) }),
      400,
      "invalid-request",
    );
    expectProblem(await del(e.id, {}), 400, "invalid-request");
    expectProblem(await del(e.id, { version_ids: v }), 400, "invalid-request");
    expectProblem(await del(e.id, { version_ids: ["not base64!"] }), 400, "invalid-request");
    // Well-formed, but not an evaluator version's id: reported as not deleted.
    const foreign = await del(e.id, { version_ids: [e.id, "AAAA", v, "AAAA"] });
    expect(foreign.status).toBe(409);
    const other = await api.req("POST", `/v2/evaluators/${e.id}/versions`, {
      body: { commit_message: "v2", template_config: rawTemplate },
    });
    expect((await del(e.id, { version_ids: [e.id, "AAAA", other.body.id, e.id] })).body).toEqual({
      completed: true,
      deleted_version_ids: [other.body.id],
      not_deleted_version_ids: [e.id, "AAAA"],
    });
    expectProblem(await del(e.id, { version_ids: [v], extra: 1 }), 400, "invalid-request");
    // 100 ids pass validation (here collapsing onto the only version: 409, nothing deleted).
    expectProblem(
      await del(e.id, { version_ids: Array.from({ length: 100 }, () => v) }),
      409,
      "resource-conflict",
    );
  });

  it("401 without a key; 404 for an unknown evaluator or one the caller cannot see; 403 without EVALUATOR_DELETE", async () => {
    const db = identityDb(api);
    try {
      const orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
      const space = await api.req("POST", "/v2/spaces", {
        body: { organization_id: orgId, name: "delete versions private", is_private: true },
      });
      expect(space.status).toBe(201);
      const created = await api.req("POST", "/v2/evaluators", {
        body: {
          space_id: space.body.id,
          name: "private-delete-versions",
          type: "TEMPLATE",
          version: { commit_message: "v1", template_config: rawTemplate },
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const body = { version_ids: [created.body.version.id] };
      expectProblem(
        await api.req("DELETE", `/v2/evaluators/${id}/versions`, { body, key: null }),
        401,
        "authentication-required",
      );
      expectProblem(
        await del("RXZhbHVhdG9yOjAxOTAwMDAwLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMA==", body),
        404,
        "resource-not-found",
      );
      const outsider = await newUser(api, db, "MEMBER");
      expectProblem(await del(id, body, outsider.key), 404, "resource-not-found");
      const reader = await newUser(api, db, "MEMBER");
      await addSpaceUser(api, space.body.id, reader.id, "READ_ONLY", orgId);
      expectProblem(await del(id, body, reader.key), 403, "access-forbidden");
    } finally {
      await db.end();
    }
  });
});

describe("GET /v2/evaluator-templates", () => {
  it("serves the built-in catalog, faithfully shaped, to any authenticated caller", async () => {
    expectProblem(
      await api.req("GET", "/v2/evaluator-templates", { key: null }),
      401,
      "authentication-required",
    );
    const res = await api.req("GET", "/v2/evaluator-templates");
    expect(res.status).toBe(200);
    const templates = res.body.evaluator_templates as Record<string, unknown>[];
    expect(templates).toHaveLength(28);
    const names = templates.map((t) => t.column_name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of templates) {
      expect(Object.keys(t).sort()).toEqual(
        [
          "classification_choices",
          "column_name",
          "data_granularity",
          "direction",
          "display_name",
          "rails",
          "template",
        ].sort(),
      );
      expect(Object.keys(t.classification_choices as object)).toEqual(t.rails);
      expect(["MAXIMIZE", "MINIMIZE", "NONE"]).toContain(t.direction);
      expect([null, "TRACE", "SESSION"]).toContain(t.data_granularity);
    }
    const hallucination = templates.find((t) => t.column_name === "hallucination")!;
    expect(hallucination).toMatchObject({
      display_name: "Hallucination",
      classification_choices: { hallucinated: 1, factual: 0 },
      direction: "MINIMIZE",
      data_granularity: null,
    });
    // A template maps onto POST /v2/evaluators as documented.
    const made = await api.req("POST", "/v2/evaluators", {
      body: {
        space_id: spaceId,
        name: "from-template",
        type: "TEMPLATE",
        version: {
          commit_message: "from the hallucination template",
          template_config: {
            ...rawTemplate,
            name: hallucination.column_name,
            template: hallucination.template,
            classification_choices: hallucination.classification_choices,
            direction: hallucination.direction,
          },
        },
      },
    });
    expect(made.status).toBe(201);
  });
});
