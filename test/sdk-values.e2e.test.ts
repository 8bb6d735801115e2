import { INIT_ADMIN_EMAIL } from "@argus/testkit";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { recentWindow, sendSpans } from "./spans-support.ts";

// Issue 13: values the official Python SDK (arize 8.61.0) sends that the gateway rejected.
// Each is accepted, stored and read back; a nonsense value next to it is still refused.

let api: Api;
let spaceId: string;
let orgId: string;
let integrationId: string;

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  const ai = await api.req("POST", "/v2/ai-integrations", {
    body: { name: "sdk values", provider: "OPEN_AI" },
  });
  expect(ai.status).toBe(201);
  integrationId = ai.body.id;
});
afterAll(() => api?.stop());

const fakeId = (type: string) => Buffer.from(`${type}:${randomUUID()}`).toString("base64");

describe("template evaluators", () => {
  const template = (over: Json = {}) => ({
    name: "relevance",
    template: "Is {output} relevant?",
    include_explanations: true,
    llm_config: {
      ai_integration_id: integrationId,
      model_name: "gpt-4o",
      invocation_parameters: {},
      provider_parameters: {},
    },
    ...over,
  });
  const create = (name: string, config: Json) =>
    api.req("POST", "/v2/evaluators", {
      body: {
        space_id: spaceId,
        name,
        type: "TEMPLATE",
        version: { commit_message: "c", template_config: config },
      },
    });

  it("accepts use_function_calling (SDK) and without classification_choices; answers both names", async () => {
    const sdk = await create("sdk-spelling", template({ use_function_calling: true }));
    expect(sdk.status).toBe(201);
    expect(sdk.body.version.template_config).toMatchObject({
      use_function_calling: true,
      use_function_calling_if_available: true,
      classification_choices: null,
    });
    const read = await api.req("GET", `/v2/evaluators/${sdk.body.id}`);
    expect(read.body.version.template_config).toMatchObject({
      use_function_calling: true,
      use_function_calling_if_available: true,
      classification_choices: null,
    });

    const ts = await create(
      "ts-spelling",
      template({ use_function_calling_if_available: false, classification_choices: null }),
    );
    expect(ts.status).toBe(201);
    expect(ts.body.version.template_config).toMatchObject({
      use_function_calling: false,
      use_function_calling_if_available: false,
      classification_choices: null,
    });
    const choices = await create(
      "with-choices",
      template({ use_function_calling: false, classification_choices: { yes: 1, no: 0 } }),
    );
    expect(choices.body.version.template_config.classification_choices).toEqual({ yes: 1, no: 0 });
  });

  it("refuses neither name, two disagreeing names, empty or non-numeric choices", async () => {
    expectProblem(await create("neither", template()), 400, "invalid-request");
    expectProblem(
      await create(
        "disagree",
        template({ use_function_calling: true, use_function_calling_if_available: false }),
      ),
      400,
      "invalid-request",
    );
    expectProblem(
      await create("empty", template({ use_function_calling: true, classification_choices: {} })),
      400,
      "invalid-request",
    );
    expectProblem(
      await create(
        "nan",
        template({ use_function_calling: true, classification_choices: { a: "x" } }),
      ),
      400,
      "invalid-request",
    );
  });

  it("REMOTE evaluators: remote_config names an EVALUATOR integration; without it 400", async () => {
    const evaluatorIntegration = async (name: string) =>
      (
        await api.req("POST", "/v2/integrations", {
          body: {
            type: "EVALUATOR",
            name,
            config: { endpoint: "https://eval.example.com/e", input_schema: { type: "object" } },
          },
        })
      ).body.id as string;
    const remoteId = await evaluatorIntegration("remote-values-1");
    const otherId = await evaluatorIntegration("remote-values-2");
    const res = await api.req("POST", "/v2/evaluators", {
      body: {
        space_id: spaceId,
        name: "remote",
        type: "REMOTE",
        version: { commit_message: "first", remote_config: { integration_id: remoteId } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.type).toBe("REMOTE");
    expect(res.body.version).toMatchObject({
      type: "REMOTE",
      remote_config: { integration_id: remoteId },
    });
    const v2 = await api.req("POST", `/v2/evaluators/${res.body.id}/versions`, {
      body: { commit_message: "second", remote_config: { integration_id: otherId } },
    });
    expect(v2.status).toBe(201);
    const read = await api.req("GET", `/v2/evaluators/${res.body.id}`);
    expect(read.body.version.remote_config).toEqual({ integration_id: otherId });
    expectProblem(
      await api.req("POST", `/v2/evaluators/${res.body.id}/versions`, {
        body: { commit_message: "x", remote_config: {} },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", `/v2/evaluators/${res.body.id}/versions`, {
        body: { commit_message: "x", template_config: template({ use_function_calling: true }) },
      }),
      400,
      "invalid-request",
    );
  });
});

describe("account roles", () => {
  it("MEMBER_UI_ONLY users are created and read back; a nonsense role is 400", async () => {
    const res = await api.req("POST", "/v2/users", {
      body: {
        name: "ui only",
        email: `ui-${randomUUID()}@example.com`,
        role: { type: "PREDEFINED", name: "MEMBER_UI_ONLY" },
        invite_mode: "NONE",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.role).toEqual({ type: "PREDEFINED", name: "MEMBER_UI_ONLY" });
    expect(res.body.is_developer).toBe(false);
    const read = await api.req("GET", `/v2/users/${res.body.id}`);
    expect(read.body.role).toEqual({ type: "PREDEFINED", name: "MEMBER_UI_ONLY" });
    const bad = await api.req("POST", "/v2/users", {
      body: {
        name: "bad",
        email: `bad-${randomUUID()}@example.com`,
        role: { type: "PREDEFINED", name: "SUPERUSER" },
        invite_mode: "NONE",
      },
    });
    expect(bad.status).toBe(400);
  });

  it("a SERVICE key's account_role MEMBER_UI_ONLY is 400, as the public API documents", async () => {
    const res = await api.req("POST", "/v2/api-keys", {
      body: {
        key_type: "SERVICE",
        name: "ui-only key",
        account_role: { type: "PREDEFINED", name: "MEMBER_UI_ONLY" },
        organizations: [{ org_id: orgId, spaces: [{ space_id: spaceId }] }],
      },
    });
    expectProblem(res, 400, "invalid-request");
    expect(res.body.detail).toMatch(/MEMBER_UI_ONLY/);
  });
});

describe("AI integrations", () => {
  it("LITELLM, FIREWORKS, TOGETHER_AI and OAUTH2_CLIENT_CREDENTIALS are stored and read back", async () => {
    for (const provider of ["LITELLM", "FIREWORKS", "TOGETHER_AI"]) {
      const res = await api.req("POST", "/v2/ai-integrations", {
        body: { name: `p-${provider}`, provider, auth_type: "OAUTH2_CLIENT_CREDENTIALS" },
      });
      expect(res.status).toBe(201);
      const read = await api.req("GET", `/v2/ai-integrations/${res.body.id}`);
      expect(read.body).toMatchObject({ provider, auth_type: "OAUTH2_CLIENT_CREDENTIALS" });
    }
    const bad = await api.req("POST", "/v2/ai-integrations", {
      body: { name: "bad", provider: "SKYNET" },
    });
    expect([400, 422]).toContain(bad.status);
    const badAuth = await api.req("POST", "/v2/ai-integrations", {
      body: { name: "bad", provider: "OPEN_AI", auth_type: "TELEPATHY" },
    });
    expect([400, 422]).toContain(badAuth.status);
  });

  it("provider_metadata without kind is answered with the kind the SDK needs", async () => {
    const aws = await api.req("POST", "/v2/ai-integrations", {
      body: {
        name: "aws no kind",
        provider: "AWS_BEDROCK",
        provider_metadata: { role_arn: "arn:aws:iam::1:role/x" },
      },
    });
    expect(aws.status).toBe(201);
    expect(aws.body.provider_metadata).toEqual({ kind: "AWS", role_arn: "arn:aws:iam::1:role/x" });
    const gcp = await api.req("POST", "/v2/ai-integrations", {
      body: {
        name: "gcp no kind",
        provider: "VERTEX_AI",
        provider_metadata: { project_id: "p", location: "us", project_access_label: "l" },
      },
    });
    expect(gcp.body.provider_metadata).toMatchObject({ kind: "GCP", project_id: "p" });
    const list = await api.req("GET", "/v2/ai-integrations?limit=100");
    for (const i of list.body.ai_integrations as Json[])
      expect(
        i.provider_metadata === null || ["AWS", "GCP"].includes(i.provider_metadata.kind),
      ).toBe(true);
  });
});

describe("permissions", () => {
  it("custom roles take COST_CONFIG_*, DASHBOARD_TEMPLATE_*, PROJECT_SPAN_EVAL_FEEDBACK_UPDATE, PROMPT_RESTRICT", async () => {
    const permissions = [
      "COST_CONFIG_CREATE",
      "COST_CONFIG_DELETE",
      "COST_CONFIG_READ",
      "COST_CONFIG_UPDATE",
      "DASHBOARD_TEMPLATE_CREATE",
      "DASHBOARD_TEMPLATE_DELETE",
      "DASHBOARD_TEMPLATE_READ",
      "DASHBOARD_TEMPLATE_UPDATE",
      "PROJECT_SPAN_EVAL_FEEDBACK_UPDATE",
      "PROMPT_RESTRICT",
    ];
    const res = await api.req("POST", "/v2/roles", {
      body: { name: `new perms ${randomUUID()}`, permissions },
    });
    expect(res.status).toBe(201);
    const read = await api.req("GET", `/v2/roles/${res.body.id}`);
    expect([...read.body.permissions].sort()).toEqual([...permissions].sort());
    const bad = await api.req("POST", "/v2/roles", {
      body: { name: "bad perms", permissions: ["COST_CONFIG_FROB"] },
    });
    expect([400, 422]).toContain(bad.status);
  });
});

describe("resource restrictions", () => {
  it("DASHBOARD and PROMPT restrictions are stored, listed by type and lifted", async () => {
    const dashboard = (
      await api.req("POST", "/v2/dashboards", {
        body: { space_id: spaceId, name: "restricted-dashboard" },
      })
    ).body.id as string;
    expect(dashboard).toBeTruthy();
    const prompt = (
      await api.req("POST", "/v2/prompts", {
        body: {
          space_id: spaceId,
          name: "restricted-prompt",
          version: {
            commit_message: "c",
            provider: "OPEN_AI",
            model: "gpt-4o",
            messages: [{ role: "USER", content: "hi" }],
          },
        },
      })
    ).body.id as string;
    expect(prompt).toBeTruthy();
    const d = await api.req("POST", "/v2/resource-restrictions", {
      body: { resource_id: dashboard },
    });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ resource_type: "DASHBOARD", resource_id: dashboard });
    const p = await api.req("POST", "/v2/resource-restrictions", { body: { resource_id: prompt } });
    expect(p.body).toMatchObject({ resource_type: "PROMPT", resource_id: prompt });

    const all = await api.req("GET", "/v2/resource-restrictions");
    const ids = (all.body.resource_restrictions as Json[]).map((r) => r.resource_id);
    expect(ids).toEqual(expect.arrayContaining([dashboard, prompt]));
    const onlyPrompts = await api.req("GET", "/v2/resource-restrictions?resource_type=PROMPT");
    expect(onlyPrompts.body.resource_restrictions).toEqual([
      expect.objectContaining({ resource_type: "PROMPT", resource_id: prompt }),
    ]);
    expectProblem(
      await api.req("GET", "/v2/resource-restrictions?resource_type=WIDGET"),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", "/v2/resource-restrictions", {
        body: { resource_id: fakeId("Widget") },
      }),
      422,
      "unprocessable-entity",
    );
    expect(
      (await api.req("DELETE", `/v2/resource-restrictions/${encodeURIComponent(dashboard)}`))
        .status,
    ).toBe(204);
    const after = await api.req("GET", "/v2/resource-restrictions?resource_type=DASHBOARD");
    expect(after.body.resource_restrictions).toEqual([]);
  });
});

describe("add_organization_user", () => {
  it("takes a custom role and answers it; an unknown role id is 404", async () => {
    const role = await api.req("POST", "/v2/roles", {
      body: { name: `org custom ${randomUUID()}`, permissions: ["PROJECT_READ"] },
    });
    const user = await api.req("POST", "/v2/users", {
      body: {
        name: "org custom",
        email: `oc-${randomUUID()}@example.com`,
        role: { type: "PREDEFINED", name: "MEMBER" },
        invite_mode: "NONE",
      },
    });
    const res = await api.req("POST", `/v2/organizations/${orgId}/users`, {
      body: { user_id: user.body.id, role: { type: "CUSTOM", id: role.body.id } },
    });
    expect(res.status).toBe(200);
    expect(res.body.role).toEqual({ type: "CUSTOM", id: role.body.id, name: role.body.name });
    expectProblem(
      await api.req("POST", `/v2/organizations/${orgId}/users`, {
        body: { user_id: user.body.id, role: { type: "CUSTOM", id: fakeId("Role") } },
      }),
      404,
      "resource-not-found",
    );
    expect(
      (
        await api.req("POST", `/v2/organizations/${orgId}/users`, {
          body: { user_id: user.body.id, role: { type: "CUSTOM" } },
        })
      ).status,
    ).toBe(400);
  });
});

describe("spaces", () => {
  it("update_space stores ml_models_enabled, gradient colors, default LLM integration and agent runtime", async () => {
    const space = await api.req("POST", "/v2/spaces", {
      body: { organization_id: orgId, name: "settings space" },
    });
    const settings = {
      ml_models_enabled: true,
      gradient_start_color: "#112233",
      gradient_end_color: "#aabbcc",
      default_llm_integration: { integration_id: integrationId, model_name: "gpt-4o" },
      default_agent_runtime: { integration_id: "runtime-1" },
    };
    const res = await api.req("PATCH", `/v2/spaces/${space.body.id}`, { body: settings });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(settings);
    expect((await api.req("GET", `/v2/spaces/${space.body.id}`)).body).toMatchObject(settings);
    const cleared = await api.req("PATCH", `/v2/spaces/${space.body.id}`, {
      body: { default_agent_runtime: null, ml_models_enabled: false },
    });
    expect(cleared.body).toMatchObject({
      ...settings,
      default_agent_runtime: null,
      ml_models_enabled: false,
    });
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space.body.id}`, {
        body: { gradient_start_color: "not a color" },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/spaces/${space.body.id}`, {
        body: { ml_models_enabled: "yes" },
      }),
      400,
      "invalid-request",
    );
  });
});

describe("projects and audit logs", () => {
  it("list_projects takes project_type: APPLICATION lists them, HARNESS none, nonsense 400", async () => {
    await api.req("POST", "/v2/projects", { body: { name: "typed", space_id: spaceId } });
    const app = await api.req("GET", "/v2/projects?project_type=APPLICATION");
    expect(app.status).toBe(200);
    expect(app.body.projects.length).toBeGreaterThan(0);
    expect(app.body.projects[0].project_type).toBe("APPLICATION");
    const harness = await api.req("GET", "/v2/projects?project_type=HARNESS");
    expect(harness.body.projects).toEqual([]);
    expectProblem(await api.req("GET", "/v2/projects?project_type=ROBOT"), 400, "invalid-request");
  });

  it("list_audit_logs takes several operation_name values", async () => {
    let names: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await api.req(
        "GET",
        "/v2/audit-logs?operation_name=SpaceCreated&operation_name=ProjectCreated&limit=100",
      );
      expect(res.status).toBe(200);
      names = [...new Set((res.body.logs as Json[]).map((l) => l.operation_name as string))];
      if (names.length === 2) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(names.sort()).toEqual(["ProjectCreated", "SpaceCreated"]);
    const tooMany = Array.from({ length: 21 }, (_, i) => `operation_name=N${i}`).join("&");
    expectProblem(await api.req("GET", `/v2/audit-logs?${tooMany}`), 400, "invalid-request");
  });
});

describe("annotation queues", () => {
  let configId: string;
  let projectId: string;
  let spanIds: string[];
  beforeAll(async () => {
    configId = (
      await api.req("POST", "/v2/annotation-configs", {
        body: { name: "sdk-config", space_id: spaceId, annotation_config_type: "FREEFORM" },
      })
    ).body.id;
    // 500 real spans: SPAN records must name spans the project has.
    const sent = await sendSpans(api.stack, {
      spaceId,
      projectName: "sdk-queue",
      spansPerTrace: 500,
    });
    projectId = sent.projectId;
    spanIds = sent.spanIds;
  });
  const session = (ids: string[]) => ({
    record_type: "SESSION",
    project_id: projectId,
    ...recentWindow(),
    session_ids: ids,
  });

  it("column_allowlist is stored, replaced and cleared", async () => {
    const q = await api.req("POST", "/v2/annotation-queues", {
      body: {
        name: "allowlist",
        space_id: spaceId,
        annotation_config_ids: [configId],
        annotator_emails: [INIT_ADMIN_EMAIL],
        column_allowlist: ["attributes.input.value", "attributes.output.value"],
      },
    });
    expect(q.status).toBe(201);
    expect(q.body.column_allowlist).toEqual(["attributes.input.value", "attributes.output.value"]);
    const path = `/v2/annotation-queues/${q.body.id}`;
    expect((await api.req("GET", path)).body.column_allowlist).toEqual([
      "attributes.input.value",
      "attributes.output.value",
    ]);
    const upd = await api.req("PATCH", path, { body: { column_allowlist: ["a"] } });
    expect(upd.body.column_allowlist).toEqual(["a"]);
    const cleared = await api.req("PATCH", path, { body: { column_allowlist: null } });
    expect(cleared.body.column_allowlist).toBeNull();
    expectProblem(
      await api.req("PATCH", path, { body: { column_allowlist: ["x".repeat(513)] } }),
      400,
      "invalid-request",
    );
    const plain = await api.req("POST", "/v2/annotation-queues", {
      body: {
        name: "no-allowlist",
        space_id: spaceId,
        annotation_config_ids: [configId],
        annotator_emails: [INIT_ADMIN_EMAIL],
      },
    });
    expect(plain.body.column_allowlist).toBeNull();
  });

  it("SESSION record sources make SESSION records; records list up to 500 per page", async () => {
    const q = await api.req("POST", "/v2/annotation-queues", {
      body: {
        name: "sessions",
        space_id: spaceId,
        annotation_config_ids: [configId],
        annotator_emails: [INIT_ADMIN_EMAIL],
        record_sources: [session(["s-1", "s-2"])],
      },
    });
    expect(q.status).toBe(201);
    const records = `/v2/annotation-queues/${q.body.id}/records`;
    const added = await api.req("POST", records, {
      body: {
        record_sources: [
          {
            record_type: "SPAN",
            project_id: projectId,
            ...recentWindow(),
            span_ids: spanIds,
          },
        ],
      },
    });
    expect(added.status).toBe(201);
    const list = await api.req("GET", `${records}?limit=500`);
    expect(list.status).toBe(200);
    expect(list.body.records).toHaveLength(500);
    const all = [
      ...(list.body.records as Json[]),
      ...((await api.req("GET", `${records}?limit=500&cursor=${list.body.pagination.next_cursor}`))
        .body.records as Json[]),
    ];
    const sessions = all.filter((r) => r.granularity === "SESSION");
    expect(sessions.map((r) => r.data["session.id"]).sort()).toEqual(["s-1", "s-2"]);
    expect(sessions[0]).toMatchObject({ source_type: "SPANS" });
    expectProblem(await api.req("GET", `${records}?limit=501`), 400, "invalid-request");
    expectProblem(
      await api.req("POST", records, {
        body: { record_sources: [session(Array.from({ length: 101 }, (_, i) => `s${i}`))] },
      }),
      400,
      "invalid-request",
    );
  });
});
