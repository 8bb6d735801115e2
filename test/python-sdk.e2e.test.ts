import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensurePythonSdk, python, root, run } from "./python-sdk.ts";
import { startApi, type Api } from "./support.ts";

let api: Api;
beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi();
}, 300_000);
afterAll(() => api?.stop());

it("create_service_key returns the raw key and a bot user whose roles the SDK can parse", async () => {
  const space = (await api.req("GET", "/v2/spaces")).body.spaces[0];
  const org = (await api.req("GET", "/v2/organizations")).body.organizations[0];
  const { stdout } = await run(
    python,
    ["test/python/service_key.py", api.stack.baseUrl, api.stack.apiKey, space.id, org.id],
    { cwd: root },
  );
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out.key).toMatch(/^ak-argus-/);
  expect(out.account_role).toEqual({ type: "PREDEFINED", name: "MEMBER" });
  expect(out.org_role).toEqual({ type: "PREDEFINED", name: "READ_ONLY" });
  expect(out.space_role).toEqual({ type: "PREDEFINED", name: "MEMBER" });
  expect((await api.req("GET", "/v2/spaces", { key: out.key })).status).toBe(200);
}, 60_000);

/** What the SDK's generated model makes of an answer (it raises on what it cannot parse). */
async function parsedBySdk(module: string, model: string, body: unknown): Promise<unknown> {
  const child = execFile(python, ["test/python/parse_model.py", module, model], { cwd: root });
  child.stdin!.end(JSON.stringify(body));
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  expect(code).toBe(0);
  return JSON.parse(out);
}

it("remove-tags answers what the SDK reads: completed, deleted, not_deleted", async () => {
  const spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const project = await api.req("POST", "/v2/projects", {
    body: { name: "py", space_id: spaceId },
  });
  const tag = await api.req("POST", "/v2/tags", { body: { name: "py-tag", space_id: spaceId } });
  const other = await api.req("POST", "/v2/tags", {
    body: { name: "py-other", space_id: spaceId },
  });
  const tags = `/v2/projects/${project.body.id}/tags`;
  expect((await api.req("POST", tags, { body: { tag_ids: [tag.body.id] } })).status).toBe(200);
  const res = await api.req("DELETE", tags, { body: { tag_ids: [tag.body.id, other.body.id] } });
  expect(res.status).toBe(200);
  expect(await parsedBySdk("remove_tags_response", "RemoveTagsResponse", res.body)).toEqual({
    completed: false,
    deleted: [tag.body.id],
    not_deleted: [other.body.id],
  });
});

it("delete_versions, the evaluator templates and annotation config tags through the SDK", async () => {
  const spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const ai = await api.req("POST", "/v2/ai-integrations", {
    body: { name: "py evaluators", provider: "OPEN_AI" },
  });
  const templateConfig = {
    name: "relevance",
    template: "Is {output} relevant?",
    include_explanations: false,
    use_function_calling_if_available: false,
    classification_choices: { relevant: 1, irrelevant: 0 },
    llm_config: {
      ai_integration_id: ai.body.id,
      model_name: "gpt-4o",
      invocation_parameters: {},
      provider_parameters: {},
    },
  };
  const evaluator = async (name: string) =>
    (
      await api.req("POST", "/v2/evaluators", {
        body: {
          space_id: spaceId,
          name,
          type: "TEMPLATE",
          version: { commit_message: "v1", template_config: templateConfig },
        },
      })
    ).body;
  const e = await evaluator("py-delete-versions");
  const v2 = await api.req("POST", `/v2/evaluators/${e.id}/versions`, {
    body: { commit_message: "v2", template_config: templateConfig },
  });
  const other = await evaluator("py-other");
  const config = await api.req("POST", "/v2/annotation-configs", {
    body: { space_id: spaceId, name: "py-config", annotation_config_type: "FREEFORM" },
  });
  const tag = await api.req("POST", "/v2/tags", {
    body: { name: "py-config-tag", space_id: spaceId },
  });
  const { stdout } = await run(
    python,
    [
      "test/python/evaluator_versions.py",
      api.stack.baseUrl,
      api.stack.apiKey,
      e.id,
      v2.body.id,
      other.version.id,
      config.body.id,
      tag.body.id,
    ],
    { cwd: root },
  );
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out.deleted).toEqual({
    completed: true,
    deleted_version_ids: [v2.body.id],
    not_deleted_version_ids: [other.version.id],
  });
  expect((await api.req("GET", `/v2/evaluators/${e.id}`)).body.version.id).toBe(e.version.id);
  expect(out.templates).toHaveLength(28);
  expect(
    out.templates.find((t: { column_name: string }) => t.column_name === "hallucination"),
  ).toMatchObject({
    direction: "MINIMIZE",
    classification_choices: { hallucinated: 1, factual: 0 },
  });
  expect(out.attached).toEqual([tag.body.id]);
  expect(out.listed).toEqual([tag.body.id]);
}, 60_000);

it("issue 13: the SDK's values are accepted and read back through its own client", async () => {
  const space = (await api.req("GET", "/v2/spaces")).body.spaces[0];
  const org = (await api.req("GET", "/v2/organizations")).body.organizations[0];
  const ai = await api.req("POST", "/v2/ai-integrations", {
    body: { name: "sdk values ai", provider: "OPEN_AI" },
  });
  // A kindless metadata the SDK could not parse before: the list below must still parse.
  await api.req("POST", "/v2/ai-integrations", {
    body: {
      name: "sdk values aws",
      provider: "AWS_BEDROCK",
      provider_metadata: { role_arn: "arn:aws:iam::1:role/x" },
    },
  });
  await api.req("POST", "/v2/projects", { body: { name: "py-typed", space_id: space.id } });
  // A restriction names a dashboard that exists.
  const dashboard = (
    await api.req("POST", "/v2/dashboards", {
      body: { space_id: space.id, name: `py-restricted-${randomUUID()}` },
    })
  ).body.id as string;
  const remote = await api.req("POST", "/v2/integrations", {
    body: {
      type: "EVALUATOR",
      name: "sdk values remote",
      config: { endpoint: "https://eval.example.com/e", input_schema: { type: "object" } },
    },
  });
  const { stdout } = await run(
    python,
    [
      "test/python/sdk_values.py",
      api.stack.baseUrl,
      api.stack.apiKey,
      space.id,
      org.id,
      ai.body.id,
      dashboard,
      remote.body.id,
    ],
    { cwd: root, timeout: 120_000, env: { ...process.env, DISABLE_PRERELEASE_WARNING: "true" } },
  );
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out.template).toEqual({ use_function_calling: true, classification_choices: null });
  expect(out.remote).toEqual({ type: "REMOTE", integration_id: remote.body.id });
  expect(out.user_role).toEqual({ type: "PREDEFINED", name: "MEMBER_UI_ONLY" });
  expect(out.providers).toEqual(["FIREWORKS", "LITELLM", "TOGETHER_AI"]);
  expect(out.auth_types).toEqual(["OAUTH2_CLIENT_CREDENTIALS"]);
  expect(out.permissions).toEqual([
    "COST_CONFIG_READ",
    "DASHBOARD_TEMPLATE_UPDATE",
    "PROJECT_SPAN_EVAL_FEEDBACK_UPDATE",
    "PROMPT_RESTRICT",
  ]);
  expect(out.restrictions).toEqual([["DASHBOARD", dashboard]]);
  expect(out.org_role).toMatchObject({ type: "CUSTOM" });
  expect(out.space).toEqual({
    ml_models_enabled: true,
    gradient_start_color: "#123456",
    gradient_end_color: "#abcdef",
    default_llm_model: "gpt-4o",
    default_agent_runtime: "runtime",
  });
  expect(out.projects.APPLICATION).toBeGreaterThan(0);
  expect(out.projects.HARNESS).toBe(0);
  expect(out.audit_names).toEqual(["RoleCreated", "SpaceUpdated"]);
}, 180_000);

it("create with invite_mode TEMPORARY_PASSWORD answers the password once; reset_password is 204", async () => {
  const { stdout } = await run(
    python,
    ["test/python/users_password.py", api.stack.baseUrl, api.stack.apiKey, "py-temp@example.com"],
    { cwd: root },
  );
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out).toMatchObject({ status: "ACTIVE", invite_mode: "TEMPORARY_PASSWORD", reset: null });
  expect(out.temporary_password).toMatch(/^[0-9A-Za-z]{24}$/);
  expect((await api.req("GET", `/v2/users/${out.id}`)).body).not.toHaveProperty(
    "temporary_password",
  );
}, 60_000);
