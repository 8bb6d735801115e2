/**
 * The SDK contract (issue 13): every operation the gateway serves is called as the admin,
 * in representative variants, and every 2xx answer is deserialized by the official Python
 * SDK's generated client exactly as it does for its users (test/python/contract.py): the
 * model its `_response_types_map` names for the operation and status, pydantic validation
 * included. An answer the SDK cannot parse (a missing discriminator, an enum value it does not
 * know, a value of the wrong type, a status it does not expect) fails this suite, and so does an
 * operation of the document the SDK does not know (unless allow-listed below with a reason) or
 * one it calls with another method or path. Lists run last, page after page, so that they
 * answer with every kind the other variants made.
 */
import { INIT_ADMIN_EMAIL } from "@argus/testkit";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { predefinedRole } from "@argus/platform";
import { HTTP_METHODS, loadDocument } from "../services/gateway/src/openapi/document.ts";
import { ensurePythonSdk, python, root } from "./python-sdk.ts";
import { startApi, storedIdsIn, wholeAuditLog, type Api, type Json } from "./support.ts";
import { addOrganizationUser, identityDb, newUser, seedKey, uuidOf } from "./identity-fixtures.ts";
import { catalogRecipes, type MatrixHelpers } from "./authz-catalog.ts";
import { contentRecipes } from "./authz-catalog-content.ts";
import { datasetContractVariants, datasetRecipes, freshResourceRef } from "./authz-datasets.ts";
import { experimentContractVariants, experimentRecipes } from "./authz-experiments.ts";
import { monitorRecipes } from "./authz-monitors.ts";
import { recentWindow, sendSpans } from "./spans-support.ts";
import { exactMatchEvaluator, taskExperiment as sharedTaskExperiment } from "./tasks-support.ts";

/**
 * Operations of the document that the SDK's generated client does not have (so no model to
 * check their answers against); each still has to answer 2xx here. An entry the SDK starts to
 * know fails the suite until it is removed, so its answers are then checked.
 */
const NOT_IN_SDK: Record<string, string> = {
  // arize 8.61.0 generates only create/update/delete for tags (its TagsApi): reading a tag
  // or listing the space's tags is served for the AX REST API's clients, not the SDK's.
  list_tags: "arize 8.61.0's TagsApi has no list_tags",
  get_tag: "arize 8.61.0's TagsApi has no get_tag",
  // The SDK's ExperimentsApi and AnnotationQueuesApi list and add tags, but do not remove them.
  remove_experiment_tags: "arize 8.61.0's ExperimentsApi has no remove_experiment_tags",
  remove_annotation_queue_tags:
    "arize 8.61.0's AnnotationQueuesApi has no remove_annotation_queue_tags",
};

interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** The caller's key; the admin's by default. */
  key?: string;
}
type Recipe = () => Promise<Request>;

interface SdkOperation {
  module: string;
  method: string | null;
  path: string | null;
  responses: Record<string, string | null>;
}
interface Answer {
  operation_id: string;
  variant: string;
  status: number;
  content_type: string | null;
  body: string;
}
interface Parsed {
  operation_id: string;
  status: number;
  model: string | null;
  error: string | null;
}

let api: Api;
let db: pg.Pool;
let orgId: string;

const publicId = (type: string, uuid: string) => Buffer.from(`${type}:${uuid}`).toString("base64");
const unique = () => `c-${randomUUID()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);
const freshSpace = async () =>
  (await asAdmin("POST", "/v2/spaces", { organization_id: orgId, name: unique() })).id as string;
const freshDatasetRef = (type: "dataset" | "experiment", space: string): Promise<string> =>
  freshResourceRef({ asAdmin, unique }, type, space);
const helpers: MatrixHelpers = { asAdmin, freshSpace, unique, freshDatasetRef };

/** A project or dashboard of its own space (a restriction names one that exists). */
const freshInSpace = async (path: "/v2/projects" | "/v2/dashboards") =>
  (await asAdmin("POST", path, { space_id: await freshSpace(), name: unique() })).id as string;
const freshUser = async () => (await newUser(api, db, "MEMBER")).id;
const customRole = async () =>
  (
    await asAdmin("POST", "/v2/roles", {
      name: unique(),
      permissions: ["TAG_READ", "PROJECT_READ"],
    })
  ).id as string;
const freshOrg = async () =>
  (await asAdmin("POST", "/v2/organizations", { name: unique() })).id as string;
const predefinedRoleId = (name: "ADMIN" | "MEMBER" | "READ_ONLY") =>
  publicId("Role", predefinedRole(name).id);
async function freshBinding(custom = false): Promise<string> {
  return (
    await asAdmin("POST", "/v2/role-bindings", {
      role_id: custom ? await customRole() : predefinedRoleId("READ_ONLY"),
      user_id: await freshUser(),
      resource_type: "SPACE",
      resource_id: await freshSpace(),
    })
  ).id;
}
const userKey = async () => asAdmin("POST", "/v2/api-keys", { key_type: "USER", name: unique() });
const serviceKey = async () =>
  asAdmin("POST", "/v2/api-keys", {
    key_type: "SERVICE",
    name: unique(),
    organizations: [
      {
        org_id: orgId,
        role: { name: "READ_ONLY" },
        spaces: [{ space_id: await freshSpace(), role: { name: "MEMBER" } }],
      },
    ],
  });

/** Each operation's variants: the matrix's recipes, then identity's and the rest here. */
function recipes(): Record<string, Record<string, Recipe>> {
  const out: Record<string, Record<string, Recipe>> = {};
  const schemaEnum = (name: string) =>
    (document.components?.schemas?.[name] as { enum: string[] }).enum;
  const managedCode = {
    type: "MANAGED",
    name: "exact_match",
    managed_evaluator: "EXACT_MATCH",
    variables: ["output", "expected"],
  };
  const customCode = {
    type: "CUSTOM",
    name: "custom_check",
    code: "def evaluate(output):\n    return 1\n",
    variables: ["output"],
  };
  const add = (id: string, variant: string, recipe: Recipe) => ((out[id] ??= {})[variant] = recipe);
  for (const [id, recipe] of Object.entries({
    ...catalogRecipes(helpers),
    ...contentRecipes(helpers, () => api.stack),
    ...datasetRecipes(helpers),
    ...experimentRecipes(helpers),
    ...monitorRecipes(helpers),
  }))
    add(id, "matrix recipe", recipe);
  for (const [id, variants] of Object.entries({
    ...datasetContractVariants(helpers),
    ...experimentContractVariants(helpers),
  }))
    for (const [variant, recipe] of Object.entries(variants)) add(id, variant, recipe);

  // Organizations and spaces, with PREDEFINED and CUSTOM roles for their users.
  add("list_organizations", "all", async () => ({ method: "GET", path: "/v2/organizations" }));
  add("create_organization", "plain", async () => ({
    method: "POST",
    path: "/v2/organizations",
    body: { name: unique(), description: "d" },
  }));
  add("get_organization", "initial", async () => ({
    method: "GET",
    path: `/v2/organizations/${orgId}`,
  }));
  add("update_organization", "description", async () => ({
    method: "PATCH",
    path: `/v2/organizations/${await freshOrg()}`,
    body: { description: "changed" },
  }));
  add("delete_organization", "fresh", async () => ({
    method: "DELETE",
    path: `/v2/organizations/${await freshOrg()}`,
  }));
  for (const [variant, role] of [
    ["PREDEFINED role", async () => ({ type: "PREDEFINED", name: "READ_ONLY" })],
    ["CUSTOM role", async () => ({ type: "CUSTOM", id: await customRole() })],
  ] as const) {
    add("add_organization_user", variant, async () => ({
      method: "POST",
      path: `/v2/organizations/${await freshOrg()}/users`,
      body: { user_id: await freshUser(), role: await role() },
    }));
    add("add_space_user", variant, async () => {
      const user = await freshUser();
      await addOrganizationUser(api, orgId, user, "READ_ONLY");
      return {
        method: "POST",
        path: `/v2/spaces/${await freshSpace()}/users`,
        body: { user_id: user, role: await role() },
      };
    });
  }
  add("remove_organization_user", "member", async () => {
    const org = await freshOrg();
    const user = await freshUser();
    await addOrganizationUser(api, org, user, "READ_ONLY");
    return { method: "DELETE", path: `/v2/organizations/${org}/users/${user}` };
  });
  add("list_spaces", "all", async () => ({ method: "GET", path: "/v2/spaces" }));
  add("create_space", "public", async () => ({
    method: "POST",
    path: "/v2/spaces",
    body: { organization_id: orgId, name: unique() },
  }));
  add("create_space", "private", async () => ({
    method: "POST",
    path: "/v2/spaces",
    body: { organization_id: orgId, name: unique(), is_private: true },
  }));
  add("get_space", "fresh", async () => ({
    method: "GET",
    path: `/v2/spaces/${await freshSpace()}`,
  }));
  add("update_space", "description", async () => ({
    method: "PATCH",
    path: `/v2/spaces/${await freshSpace()}`,
    body: { description: "changed" },
  }));
  add("delete_space", "fresh", async () => ({
    method: "DELETE",
    path: `/v2/spaces/${await freshSpace()}`,
  }));
  add("remove_space_user", "member", async () => {
    const space = await freshSpace();
    const user = await freshUser();
    await addOrganizationUser(api, orgId, user, "READ_ONLY");
    await asAdmin("POST", `/v2/spaces/${space}/users`, {
      user_id: user,
      role: { type: "PREDEFINED", name: "MEMBER" },
    });
    return { method: "DELETE", path: `/v2/spaces/${space}/users/${user}` };
  });

  // Users: each invite mode, and the 200 of an invitation still valid.
  add("list_users", "all", async () => ({ method: "GET", path: "/v2/users" }));
  for (const mode of ["NONE", "EMAIL_LINK", "TEMPORARY_PASSWORD"])
    add("create_user", mode, async () => ({
      method: "POST",
      path: "/v2/users",
      body: {
        name: "invitee",
        email: `${unique()}@example.com`,
        role: { type: "PREDEFINED", name: "MEMBER" },
        invite_mode: mode,
      },
    }));
  add("create_user", "invitation still valid (200)", async () => {
    const body = {
      name: "again",
      email: `${unique()}@example.com`,
      role: { type: "PREDEFINED", name: "MEMBER" },
      invite_mode: "EMAIL_LINK",
    };
    await asAdmin("POST", "/v2/users", body);
    return { method: "POST", path: "/v2/users", body };
  });
  add("get_user", "member", async () => ({
    method: "GET",
    path: `/v2/users/${await freshUser()}`,
  }));
  add("update_user", "name", async () => ({
    method: "PATCH",
    path: `/v2/users/${await freshUser()}`,
    body: { name: "renamed" },
  }));
  add("delete_user", "member", async () => ({
    method: "DELETE",
    path: `/v2/users/${await freshUser()}`,
  }));
  add("resend_user_invitation", "member", async () => ({
    method: "POST",
    path: `/v2/users/${await freshUser()}/resend-invitation`,
  }));
  add("reset_user_password", "temporary password", async () => {
    const user = await asAdmin("POST", "/v2/users", {
      name: "reset",
      email: `${unique()}@example.com`,
      role: { type: "PREDEFINED", name: "MEMBER" },
      invite_mode: "TEMPORARY_PASSWORD",
    });
    return { method: "POST", path: `/v2/users/${user.id}/reset-password` };
  });

  // Roles (PREDEFINED and CUSTOM) and their bindings.
  add("list_roles", "all", async () => ({ method: "GET", path: "/v2/roles" }));
  add("create_role", "custom", async () => ({
    method: "POST",
    path: "/v2/roles",
    body: { name: unique(), description: "d", permissions: ["TAG_READ", "PROMPT_RESTRICT"] },
  }));
  add("get_role", "CUSTOM", async () => ({
    method: "GET",
    path: `/v2/roles/${await customRole()}`,
  }));
  for (const name of ["ADMIN", "MEMBER", "READ_ONLY"] as const)
    add("get_role", `PREDEFINED ${name}`, async () => ({
      method: "GET",
      path: `/v2/roles/${predefinedRoleId(name)}`,
    }));
  add("update_role", "description", async () => ({
    method: "PATCH",
    path: `/v2/roles/${await customRole()}`,
    body: { description: "changed" },
  }));
  add("delete_role", "custom", async () => ({
    method: "DELETE",
    path: `/v2/roles/${await customRole()}`,
  }));
  add("list_role_bindings", "spaces", async () => ({
    method: "GET",
    path: "/v2/role-bindings?resource_type=SPACE",
  }));
  for (const custom of [false, true]) {
    const variant = custom ? "CUSTOM role" : "PREDEFINED role";
    add("create_role_binding", variant, async () => ({
      method: "POST",
      path: "/v2/role-bindings",
      body: {
        role_id: custom ? await customRole() : predefinedRoleId("MEMBER"),
        user_id: await freshUser(),
        resource_type: "SPACE",
        resource_id: await freshSpace(),
      },
    }));
    add("get_role_binding", variant, async () => ({
      method: "GET",
      path: `/v2/role-bindings/${await freshBinding(custom)}`,
    }));
  }
  add("update_role_binding", "to MEMBER", async () => ({
    method: "PATCH",
    path: `/v2/role-bindings/${await freshBinding()}`,
    body: { role_id: predefinedRoleId("MEMBER") },
  }));
  add("delete_role_binding", "fresh", async () => ({
    method: "DELETE",
    path: `/v2/role-bindings/${await freshBinding()}`,
  }));
  add("list_resource_restrictions", "all", async () => ({
    method: "GET",
    path: "/v2/resource-restrictions",
  }));
  add("create_resource_restriction", "project", async () => ({
    method: "POST",
    path: "/v2/resource-restrictions",
    body: { resource_id: await freshInSpace("/v2/projects") },
  }));
  add("delete_resource_restriction", "project", async () => {
    const project = await freshInSpace("/v2/projects");
    await asAdmin("POST", "/v2/resource-restrictions", { resource_id: project });
    return { method: "DELETE", path: `/v2/resource-restrictions/${project}` };
  });

  // API keys: USER and SERVICE.
  add("list_api_keys", "USER", async () => ({ method: "GET", path: "/v2/api-keys" }));
  add("list_api_keys", "SERVICE", async () => ({
    method: "GET",
    path: "/v2/api-keys?key_type=SERVICE",
  }));
  add("create_api_key", "USER", async () => ({
    method: "POST",
    path: "/v2/api-keys",
    body: { key_type: "USER", name: unique(), expires_at: "2099-01-01T00:00:00Z" },
  }));
  add("create_api_key", "SERVICE", async () => ({
    method: "POST",
    path: "/v2/api-keys",
    body: {
      key_type: "SERVICE",
      name: unique(),
      organizations: [
        {
          org_id: orgId,
          role: { name: "READ_ONLY" },
          spaces: [{ space_id: await freshSpace(), role: { name: "MEMBER" } }],
        },
      ],
    },
  }));
  for (const [variant, key] of [
    ["USER", userKey],
    ["SERVICE", serviceKey],
  ] as const) {
    add("refresh_api_key", variant, async () => ({
      method: "POST",
      path: `/v2/api-keys/${(await key()).id}/refresh`,
    }));
    add("revoke_api_key", variant, async () => ({
      method: "PUT",
      path: `/v2/api-keys/${(await key()).id}/revoke`,
    }));
  }
  add("list_audit_logs", "everything so far", async () => ({
    method: "GET",
    path: "/v2/audit-logs",
  }));

  // Tags of prompts, evaluators and annotation queues (the matrix covers the others).
  const tagged: [string, string, (space: string) => Promise<string>][] = [
    [
      "prompt",
      "prompts",
      async (space) =>
        (
          await asAdmin("POST", "/v2/prompts", {
            space_id: space,
            name: unique(),
            version: {
              commit_message: "c",
              provider: "OPEN_AI",
              messages: [{ role: "USER", content: "hi" }],
            },
          })
        ).id,
    ],
    [
      "evaluator",
      "evaluators",
      async (space) =>
        (
          await asAdmin("POST", "/v2/evaluators", {
            space_id: space,
            name: unique(),
            type: "CODE",
            version: { commit_message: "c", code_config: managedCode },
          })
        ).id,
    ],
    [
      "annotation_queue",
      "annotation-queues",
      async (space) => {
        const config = await asAdmin("POST", "/v2/annotation-configs", {
          space_id: space,
          name: unique(),
          annotation_config_type: "FREEFORM",
        });
        return (
          await asAdmin("POST", "/v2/annotation-queues", {
            space_id: space,
            name: unique(),
            annotation_config_ids: [config.id],
            annotator_emails: [INIT_ADMIN_EMAIL],
          })
        ).id;
      },
    ],
  ];
  for (const [type, plural, make] of tagged) {
    const withTag = async () => {
      const space = await freshSpace();
      const tag = await asAdmin("POST", "/v2/tags", { space_id: space, name: unique() });
      const id = await make(space);
      return { id, tag: tag.id as string };
    };
    add(`list_${type}_tags`, "one tag", async () => {
      const { id, tag } = await withTag();
      await asAdmin("POST", `/v2/${plural}/${id}/tags`, { tag_ids: [tag] });
      return { method: "GET", path: `/v2/${plural}/${id}/tags` };
    });
    add(`add_${type}_tags`, "one tag", async () => {
      const { id, tag } = await withTag();
      return { method: "POST", path: `/v2/${plural}/${id}/tags`, body: { tag_ids: [tag] } };
    });
    add(`remove_${type}_tags`, "one tag", async () => {
      const { id, tag } = await withTag();
      await asAdmin("POST", `/v2/${plural}/${id}/tags`, { tag_ids: [tag] });
      return { method: "DELETE", path: `/v2/${plural}/${id}/tags`, body: { tag_ids: [tag] } };
    });
  }

  // Each kind: AI integration provider (with its metadata) and auth type, annotation config,
  // evaluator and code config, prompt provider and message shape.
  const providers = [
    ["OPEN_AI", {}],
    ["AZURE_OPEN_AI", { base_url: "https://x.openai.azure.com" }],
    ["AWS_BEDROCK", { provider_metadata: { role_arn: "arn:aws:iam::1:role/x" } }],
    [
      "VERTEX_AI",
      {
        provider_metadata: {
          kind: "GCP",
          project_id: "p",
          location: "us-central1",
          project_access_label: "l",
        },
      },
    ],
    ["ANTHROPIC", { api_key: "sk-ant-0123456789" }],
    ["CUSTOM", { base_url: "https://llm.example.com", headers: { "x-a": "b" } }],
    ["NVIDIA_NIM", {}],
    ["GEMINI", {}],
    ["LITELLM", {}],
    ["FIREWORKS", {}],
    ["TOGETHER_AI", {}],
  ] as const;
  for (const [provider, extra] of providers)
    add("create_ai_integration", provider, async () => ({
      method: "POST",
      path: "/v2/ai-integrations",
      body: { name: unique(), provider, ...extra },
    }));
  for (const auth_type of ["PROXY_WITH_HEADERS", "BEARER_TOKEN", "OAUTH2_CLIENT_CREDENTIALS"])
    add("create_ai_integration", auth_type, async () => ({
      method: "POST",
      path: "/v2/ai-integrations",
      body: { name: unique(), provider: "CUSTOM", auth_type, base_url: "https://llm.example.com" },
    }));
  // LLM integrations in every provider's shape, AGENT and EVALUATOR ones: created, read,
  // updated, and listed (EVALUATOR only on request).
  const llmConfigs: [string, Json][] = [
    ["OPEN_AI", { api_key: "k" }],
    ["ANTHROPIC", { api_key: "k", base_url: "https://a.example.com/v1" }],
    ["GEMINI", { api_key: "k" }],
    [
      "AWS_BEDROCK role",
      { auth: { auth_type: "DEFAULT", role_arn: "arn:aws:iam::1:role/r" }, model_names: ["m"] },
    ],
    [
      "AWS_BEDROCK bearer",
      { auth: { auth_type: "BEARER_TOKEN", api_key: "t" }, model_names: ["m"] },
    ],
    [
      "AWS_BEDROCK proxy",
      {
        auth: {
          auth_type: "PROXY_WITH_HEADERS",
          base_url: "https://p.example.com",
          headers: { h: "v" },
        },
        model_names: ["m"],
      },
    ],
    [
      "CUSTOM",
      { base_url: "https://c.example.com", api_key: "k", model_names: ["m"], headers: { h: "v" } },
    ],
    [
      "CUSTOM oauth2",
      {
        base_url: "https://c.example.com",
        model_names: ["m"],
        auth: {
          auth_type: "OAUTH2_CLIENT_CREDENTIALS",
          token_url: "https://t.example.com",
          client_id: "c",
          client_secret: "s",
        },
      },
    ],
    ["VERTEX_AI", { project_id: "p", location: "l", project_access_label: "a" }],
    ["NVIDIA_NIM", { is_default_models_enabled: true }],
    ["LITELLM", { base_url: "https://l.example.com", api_key: "k" }],
    ["FIREWORKS", { api_key: "k" }],
    ["TOGETHER_AI", { api_key: "k", model_names: ["m"] }],
  ];
  const integrationBodies: [string, () => Json][] = [
    ...llmConfigs.map(([variant, config]): [string, () => Json] => [
      `LLM ${variant}`,
      () => ({
        type: "LLM",
        name: unique(),
        config: { provider: variant.split(" ")[0], ...config },
      }),
    ]),
    [
      "AGENT",
      () => ({
        type: "AGENT",
        name: unique(),
        description: "d",
        config: {
          endpoint: "https://agent.example.com",
          headers: { h: "v" },
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          request_presets: [{ name: "p", config: { q: "x" } }],
        },
      }),
    ],
    [
      "EVALUATOR",
      () => ({
        type: "EVALUATOR",
        name: unique(),
        config: { endpoint: "https://eval.example.com", input_schema: { type: "object" } },
      }),
    ],
  ];
  for (const [variant, body] of integrationBodies) {
    add("create_integration", variant, async () => ({
      method: "POST",
      path: "/v2/integrations",
      body: body(),
    }));
    const made = async () => asAdmin("POST", "/v2/integrations", body());
    add("get_integration", variant, async () => ({
      method: "GET",
      path: `/v2/integrations/${(await made()).id}`,
    }));
    add("update_integration", variant, async () => {
      const m = await made();
      return {
        method: "PATCH",
        path: `/v2/integrations/${m.id}`,
        body: { type: m.type, name: unique() },
      };
    });
  }
  for (const type of ["LLM", "AGENT", "EVALUATOR"])
    add("list_integrations", `type ${type}`, async () => ({
      method: "GET",
      path: `/v2/integrations?type=${type}`,
    }));
  add("create_ai_integration", "scoped to a space", async () => ({
    method: "POST",
    path: "/v2/ai-integrations",
    body: {
      name: unique(),
      provider: "OPEN_AI",
      scopings: [{ organization_id: orgId, space_id: await freshSpace() }],
    },
  }));
  const configs = {
    FREEFORM: {},
    CATEGORICAL: {
      values: [{ label: "good", score: 1 }, { label: "bad" }],
      optimization_direction: "MAXIMIZE",
    },
    CONTINUOUS: { minimum_score: 0, maximum_score: 1, optimization_direction: "MINIMIZE" },
  };
  for (const [type, extra] of Object.entries(configs)) {
    add("create_annotation_config", type, async () => ({
      method: "POST",
      path: "/v2/annotation-configs",
      body: {
        space_id: await freshSpace(),
        name: unique(),
        annotation_config_type: type,
        ...extra,
      },
    }));
    add("get_annotation_config", type, async () => ({
      method: "GET",
      path: `/v2/annotation-configs/${
        (
          await asAdmin("POST", "/v2/annotation-configs", {
            space_id: await freshSpace(),
            name: unique(),
            annotation_config_type: type,
            ...extra,
          })
        ).id
      }`,
    }));
  }
  for (const [variant, type, config] of [
    ["CODE MANAGED", "CODE", { code_config: managedCode }],
    ["CODE CUSTOM", "CODE", { code_config: customCode }],
    ["REMOTE", "REMOTE", { remote_config: { integration_id: "" } }],
  ] as const) {
    // A REMOTE evaluator names an EVALUATOR integration that applies to its space.
    const evaluatorIntegration = async () =>
      (
        await asAdmin("POST", "/v2/integrations", {
          type: "EVALUATOR",
          name: unique(),
          config: { endpoint: "https://eval.example.com/e", input_schema: { type: "object" } },
        })
      ).id as string;
    const create = async () => ({
      space_id: await freshSpace(),
      name: unique(),
      type,
      version: {
        commit_message: "c",
        ...(type === "REMOTE"
          ? { remote_config: { integration_id: await evaluatorIntegration() } }
          : config),
      },
    });
    add("create_evaluator", variant, async () => ({
      method: "POST",
      path: "/v2/evaluators",
      body: await create(),
    }));
    add("get_evaluator", variant, async () => ({
      method: "GET",
      path: `/v2/evaluators/${(await asAdmin("POST", "/v2/evaluators", await create())).id}`,
    }));
    add("get_evaluator_version", variant, async () => ({
      method: "GET",
      path: `/v2/evaluator-versions/${(await asAdmin("POST", "/v2/evaluators", await create())).version.id}`,
    }));
  }
  for (const provider of ["AZURE_OPEN_AI", "AWS_BEDROCK", "VERTEX_AI", "ANTHROPIC", "CUSTOM"])
    add("create_prompt", provider, async () => ({
      method: "POST",
      path: "/v2/prompts",
      body: {
        space_id: await freshSpace(),
        name: unique(),
        version: { commit_message: "c", provider, messages: [{ role: "USER", content: "hi" }] },
      },
    }));
  // An annotation queue of every config type and record type, with an annotator, annotated.
  // Spans and traces, their roots annotated with every config type, a page at a time.
  const annotatedSpans = async () => {
    const space = await freshSpace();
    const sent = await sendSpans(api.stack, {
      spaceId: space,
      projectName: unique(),
      traces: 2,
      spansPerTrace: 2,
    });
    const values: Json[] = [];
    for (const [type, extra] of Object.entries(configs)) {
      const name = unique();
      await asAdmin("POST", "/v2/annotation-configs", {
        space_id: space,
        name,
        annotation_config_type: type,
        ...extra,
      });
      values.push(
        type === "FREEFORM"
          ? { name, text: "fine" }
          : type === "CATEGORICAL"
            ? { name, label: "good", score: 1 }
            : { name, score: 0.5 },
      );
    }
    await asAdmin("POST", "/v2/spans/annotate", {
      project_id: sent.projectId,
      annotations: sent.rootSpanIds.map((record_id) => ({ record_id, values })),
    });
    return { project_id: sent.projectId, ...recentWindow() };
  };
  add("list_spans", "annotated, a page of 2", async () => ({
    method: "POST",
    path: "/v2/spans?limit=2",
    body: await annotatedSpans(),
  }));
  add("list_spans", "a filter, columns, truncated", async () => ({
    method: "POST",
    path: "/v2/spans",
    body: {
      ...(await annotatedSpans()),
      filter: "span_kind = 'LLM'",
      included_columns: ["attributes.openinference.span.kind"],
      truncate_string_length: 2,
    },
  }));
  add("list_traces", "annotated, a page of 1", async () => ({
    method: "POST",
    path: "/v2/traces?limit=1",
    body: await annotatedSpans(),
  }));
  // Records name real spans and traces (sent over OTLP), in a window around now.
  const richQueue = async () => {
    const window = recentWindow();
    const space = await freshSpace();
    // Active at once (signs in through SSO): an annotator must be an active user.
    const annotator = await asAdmin("POST", "/v2/users", {
      name: "annotator",
      email: `${unique()}@example.com`,
      role: { type: "PREDEFINED", name: "ANNOTATOR" },
      invite_mode: "NONE",
    });
    await addOrganizationUser(api, orgId, annotator.id, "ANNOTATOR");
    await asAdmin("POST", `/v2/spaces/${space}/users`, {
      user_id: annotator.id,
      role: { type: "PREDEFINED", name: "ANNOTATOR" },
    });
    const configIds: string[] = [];
    const names: Record<string, string> = {};
    for (const [type, extra] of Object.entries(configs)) {
      names[type] = unique();
      const config = await asAdmin("POST", "/v2/annotation-configs", {
        space_id: space,
        name: names[type],
        annotation_config_type: type,
        ...extra,
      });
      configIds.push(config.id);
    }
    const sent = await sendSpans(api.stack, {
      spaceId: space,
      projectName: unique(),
      spansPerTrace: 3,
    });
    const project = { id: sent.projectId };
    const [s1, s2, s3] = sent.spanIds as [string, string, string];
    const queue = await asAdmin("POST", "/v2/annotation-queues", {
      space_id: space,
      name: unique(),
      instructions: "judge",
      annotation_config_ids: configIds,
      annotator_emails: [annotator.email],
      assignment_method: "RANDOM",
      record_sources: [
        { record_type: "SPAN", project_id: project.id, ...window, span_ids: [s1, s2] },
        { record_type: "TRACE", project_id: project.id, ...window, trace_ids: sent.traceIds },
      ],
    });
    return { space, queue, project, names, annotator, configIds, s3, window };
  };
  add("create_annotation_queue", "every config type, an annotator, records", async () => {
    const { space, project, configIds, s3, window } = await richQueue();
    return {
      method: "POST",
      path: "/v2/annotation-queues",
      body: {
        space_id: space,
        name: unique(),
        annotation_config_ids: configIds,
        annotator_emails: [INIT_ADMIN_EMAIL],
        record_sources: [
          { record_type: "SPAN", project_id: project.id, ...window, span_ids: [s3] },
        ],
      },
    };
  });
  add("get_annotation_queue", "every config type, an annotator, records", async () => ({
    method: "GET",
    path: `/v2/annotation-queues/${(await richQueue()).queue.id}`,
  }));
  const recordSource = async (kind: "SESSION" | "EXAMPLE", space: string, project: string) =>
    kind === "SESSION"
      ? { record_type: "SESSION", project_id: project, ...recentWindow(), session_ids: ["x1"] }
      : {
          record_type: "EXAMPLE",
          dataset_id: await freshDatasetRef("dataset", space),
          example_ids: ["e1"],
        };
  for (const kind of ["SESSION", "EXAMPLE"] as const) {
    add("create_annotation_queue_record", kind, async () => {
      const { space, queue, project } = await richQueue();
      return {
        method: "POST",
        path: `/v2/annotation-queues/${queue.id}/records`,
        body: { record_sources: [await recordSource(kind, space, project.id)] },
      };
    });
    add("list_annotation_queue_records", kind, async () => {
      const { space, queue, project } = await richQueue();
      await asAdmin("POST", `/v2/annotation-queues/${queue.id}/records`, {
        record_sources: [await recordSource(kind, space, project.id)],
      });
      return { method: "GET", path: `/v2/annotation-queues/${queue.id}/records` };
    });
  }
  const annotatedQueue = async () => {
    const q = await richQueue();
    const records = (await asAdmin("GET", `/v2/annotation-queues/${q.queue.id}/records`)).records;
    const annotate = `/v2/annotation-queues/${q.queue.id}/records/${records[0].id}/annotate`;
    const annotations = [
      { name: q.names.CATEGORICAL, label: "good", score: 1 },
      { name: q.names.CONTINUOUS, score: 0.5 },
      { name: q.names.FREEFORM, text: "fine" },
    ];
    return { ...q, records, annotate, annotations };
  };
  add("annotate_annotation_queue_record", "every config type", async () => {
    const q = await annotatedQueue();
    return { method: "POST", path: q.annotate, body: { annotations: q.annotations } };
  });
  add("list_annotation_queue_records", "annotated, assigned", async () => {
    const q = await annotatedQueue();
    await asAdmin("POST", q.annotate, { annotations: q.annotations });
    return { method: "GET", path: `/v2/annotation-queues/${q.queue.id}/records` };
  });
  add("assign_annotation_queue_record", "an annotator", async () => {
    const q = await annotatedQueue();
    return {
      method: "POST",
      path: `/v2/annotation-queues/${q.queue.id}/records/${q.records[0].id}/assign`,
      body: { assigned_user_emails: [q.annotator.email] },
    };
  });
  add("create_role_binding", "PROJECT", async () => ({
    method: "POST",
    path: "/v2/role-bindings",
    body: {
      role_id: await customRole(),
      user_id: await freshUser(),
      resource_type: "PROJECT",
      resource_id: (
        await asAdmin("POST", "/v2/projects", { space_id: await freshSpace(), name: unique() })
      ).id,
    },
  }));
  add("list_role_bindings", "PROJECT", async () => ({
    method: "GET",
    path: "/v2/role-bindings?resource_type=PROJECT",
  }));
  add("update_ai_integration", "to AWS metadata", async () => ({
    method: "PATCH",
    path: `/v2/ai-integrations/${
      (
        await asAdmin("POST", "/v2/ai-integrations", {
          name: unique(),
          provider: "AWS_BEDROCK",
          provider_metadata: { role_arn: "arn:aws:iam::1:role/x" },
        })
      ).id
    }`,
    body: { provider_metadata: { role_arn: "arn:aws:iam::1:role/y", external_id: "e" } },
  }));
  // Each predefined role where one is named, every permission, each restricted resource type.
  for (const name of ["ADMIN", "MEMBER", "MEMBER_UI_ONLY", "ANNOTATOR"])
    add("create_user", `account role ${name}`, async () => ({
      method: "POST",
      path: "/v2/users",
      body: {
        name: "invitee",
        email: `${unique()}@example.com`,
        role: { type: "PREDEFINED", name },
        invite_mode: "NONE",
      },
    }));
  // Annotators hold only annotator roles.
  const userFor = async (role: string) =>
    role === "ANNOTATOR" ? (await newUser(api, db, "ANNOTATOR")).id : freshUser();
  for (const name of ["ADMIN", "MEMBER", "READ_ONLY", "ANNOTATOR"]) {
    add("add_organization_user", `PREDEFINED ${name}`, async () => ({
      method: "POST",
      path: `/v2/organizations/${await freshOrg()}/users`,
      body: { user_id: await userFor(name), role: { type: "PREDEFINED", name } },
    }));
    add("add_space_user", `PREDEFINED ${name}`, async () => {
      const user = await userFor(name);
      await addOrganizationUser(api, orgId, user, name === "ANNOTATOR" ? name : "READ_ONLY");
      return {
        method: "POST",
        path: `/v2/spaces/${await freshSpace()}/users`,
        body: { user_id: user, role: { type: "PREDEFINED", name } },
      };
    });
  }
  for (const name of ["ADMIN", "MEMBER", "READ_ONLY"])
    add("create_api_key", `SERVICE, ${name} in its organization and space`, async () => ({
      method: "POST",
      path: "/v2/api-keys",
      body: {
        key_type: "SERVICE",
        name: unique(),
        account_role: { type: "PREDEFINED", name: "MEMBER" },
        organizations: [
          {
            org_id: orgId,
            role: { type: "PREDEFINED", name },
            spaces: [{ space_id: await freshSpace(), role: { name } }],
          },
        ],
      },
    }));
  add("create_api_key", "SERVICE, ADMIN account role, a custom space role", async () => ({
    method: "POST",
    path: "/v2/api-keys",
    body: {
      key_type: "SERVICE",
      name: unique(),
      account_role: { type: "PREDEFINED", name: "ADMIN" },
      organizations: [
        {
          org_id: orgId,
          spaces: [
            {
              space_id: await freshSpace(),
              role: {
                type: "CUSTOM",
                id: (
                  await asAdmin("POST", "/v2/roles", {
                    name: unique(),
                    permissions: ["SPACE_READ"],
                  })
                ).id,
              },
            },
          ],
        },
      ],
    },
  }));
  add("create_role", "every permission", async () => ({
    method: "POST",
    path: "/v2/roles",
    body: { name: unique(), permissions: schemaEnum("Permission") },
  }));
  for (const type of ["PROJECT", "DASHBOARD", "PROMPT"])
    add("create_resource_restriction", type, async () => ({
      method: "POST",
      path: "/v2/resource-restrictions",
      body: {
        resource_id:
          type === "PROMPT"
            ? (
                await asAdmin("POST", "/v2/prompts", {
                  space_id: await freshSpace(),
                  name: unique(),
                  version: {
                    commit_message: "c",
                    provider: "OPEN_AI",
                    messages: [{ role: "USER", content: "hi" }],
                  },
                })
              ).id
            : await freshInSpace(type === "PROJECT" ? "/v2/projects" : "/v2/dashboards"),
      },
    }));
  // What other callers read: a member (USER key) and a SERVICE key, both in a space.
  let callers: Promise<Record<string, string>> | undefined;
  const caller = async (who: string) => {
    callers ??= (async () => {
      const space = await freshSpace();
      const member = await newUser(api, db, "MEMBER");
      await addOrganizationUser(api, orgId, member.id, "READ_ONLY");
      await asAdmin("POST", `/v2/spaces/${space}/users`, {
        user_id: member.id,
        role: { type: "PREDEFINED", name: "MEMBER" },
      });
      const service = await asAdmin("POST", "/v2/api-keys", {
        key_type: "SERVICE",
        name: unique(),
        organizations: [{ org_id: orgId, spaces: [{ space_id: space, role: { name: "MEMBER" } }] }],
      });
      // The member's keys (what it lists) include a revoked and an expired one.
      await seedKey(api, db, member.id, { status: "REVOKED" });
      await seedKey(api, db, member.id, { expiresAt: new Date(Date.now() - 1000) });
      return { member: member.key, "service key": service.key };
    })();
    return (await callers)[who]!;
  };
  for (const who of ["member", "service key"])
    for (const [id, path] of [
      ["list_organizations", "/v2/organizations"],
      ["list_spaces", "/v2/spaces"],
      ["list_users", "/v2/users"],
      ["list_roles", "/v2/roles"],
      ["list_api_keys", "/v2/api-keys"],
      ["list_projects", "/v2/projects"],
      ["list_datasets", "/v2/datasets"],
      ["list_prompts", "/v2/prompts"],
      ["list_evaluators", "/v2/evaluators"],
      ["list_ai_integrations", "/v2/ai-integrations"],
      ["list_integrations", "/v2/integrations"],
      ["list_annotation_configs", "/v2/annotation-configs"],
      ["list_annotation_queues", "/v2/annotation-queues"],
      ["list_resource_restrictions", "/v2/resource-restrictions"],
    ] as const)
      add(id, `as a ${who}`, async () => ({ method: "GET", path, key: await caller(who) }));
  for (const color of schemaEnum("TagColor"))
    add("create_tag", `color ${color}`, async () => ({
      method: "POST",
      path: "/v2/tags",
      body: { space_id: await freshSpace(), name: unique(), color },
    }));
  for (const format of schemaEnum("InputVariableFormat"))
    add("create_prompt", `input variables ${format}`, async () => ({
      method: "POST",
      path: "/v2/prompts",
      body: {
        space_id: await freshSpace(),
        name: unique(),
        version: {
          commit_message: "c",
          provider: "OPEN_AI",
          input_variable_format: format,
          messages: [{ role: "USER", content: "hi {name} {{name}}" }],
        },
      },
    }));
  add("get_user", "invitation EXPIRED", async () => {
    const u = await newUser(api, db, "MEMBER");
    await db.query(
      "update invitation_tokens set expires_at = now() - interval '1 second' where user_id = $1",
      [uuidOf(u.id)],
    );
    return { method: "GET", path: `/v2/users/${u.id}` };
  });
  add("create_prompt", "tool calls and invocation parameters", async () => ({
    method: "POST",
    path: "/v2/prompts",
    body: {
      space_id: await freshSpace(),
      name: unique(),
      version: {
        commit_message: "c",
        provider: "OPEN_AI",
        model: "gpt-4o",
        messages: [
          { role: "SYSTEM", content: "be brief" },
          { role: "USER", content: "weather?" },
          {
            role: "ASSISTANT",
            content: null,
            tool_calls: [
              { id: "t1", type: "FUNCTION", function: { name: "weather", arguments: "{}" } },
            ],
          },
          { role: "TOOL", content: "sunny", tool_call_id: "t1" },
        ],
        invocation_params: {
          temperature: 0.5,
          stop: ["x"],
          response_format: { type: "JSON_OBJECT" },
          tool_config: { tools: [{ type: "function" }], tool_choice: "auto" },
        },
      },
    },
  }));
  // Webhooks and subscriptions. Deliveries go to a name that does not resolve here: the test
  // delivery answers 200 with status_code 502, and is logged like any attempt.
  const freshWebhook = async (auth_type = "BEARER") =>
    asAdmin("POST", "/v2/webhooks", {
      organization_id: orgId,
      name: unique(),
      url: "https://hooks.example.com/argus",
      auth_type,
      ...(auth_type === "BEARER" ? { auth_token: "Bearer t", headers: { "X-Team": "a" } } : {}),
    });
  const freshPromptId = async () =>
    (
      await asAdmin("POST", "/v2/prompts", {
        space_id: await freshSpace(),
        name: unique(),
        version: {
          commit_message: "c",
          provider: "OPEN_AI",
          model: "gpt-4o",
          messages: [{ role: "USER", content: "hi" }],
        },
      })
    ).id as string;
  const freshSubscription = async () =>
    asAdmin("POST", "/v2/webhook-subscriptions", {
      webhook_id: (await freshWebhook()).id,
      source_type: "PROMPT",
      source_id: await freshPromptId(),
      event: "PROMPT_VERSION_CREATED",
    });
  add("list_webhooks", "all", async () => ({ method: "GET", path: "/v2/webhooks" }));
  add("list_webhooks", "one organization, a page of 1", async () => ({
    method: "GET",
    path: `/v2/webhooks?org_id=${orgId}&limit=1`,
  }));
  for (const auth of ["BEARER", "HMAC_SHA256"])
    add("create_webhook", auth, async () => ({
      method: "POST",
      path: "/v2/webhooks",
      body: {
        organization_id: orgId,
        name: unique(),
        url: "https://hooks.example.com/x",
        auth_type: auth,
        timeout_ms: 1000,
      },
    }));
  add("get_webhook", "HMAC", async () => ({
    method: "GET",
    path: `/v2/webhooks/${(await freshWebhook("HMAC_SHA256")).id}`,
  }));
  add("update_webhook", "every field", async () => ({
    method: "PATCH",
    path: `/v2/webhooks/${(await freshWebhook()).id}`,
    body: {
      name: unique(),
      description: null,
      url: "https://hooks.example.com/y",
      auth_token: "Bearer u",
      timeout_ms: 2000,
      headers: { "X-Other": "b" },
    },
  }));
  add("delete_webhook", "fresh", async () => ({
    method: "DELETE",
    path: `/v2/webhooks/${(await freshWebhook()).id}`,
  }));
  add("test_webhook", "unreachable", async () => ({
    method: "POST",
    path: `/v2/webhooks/${(await freshWebhook()).id}/test`,
  }));
  add("list_webhook_delivery_attempts", "after a test", async () => {
    const w = await freshWebhook();
    await asAdmin("POST", `/v2/webhooks/${w.id}/test`);
    return { method: "GET", path: `/v2/webhooks/${w.id}/delivery-attempts` };
  });
  add("create_webhook_subscription", "prompt", async () => ({
    method: "POST",
    path: "/v2/webhook-subscriptions",
    body: {
      webhook_id: (await freshWebhook()).id,
      source_type: "PROMPT",
      source_id: await freshPromptId(),
      event: "PROMPT_VERSION_LABELED",
    },
  }));
  add("create_webhook_subscription", "space", async () => ({
    method: "POST",
    path: "/v2/webhook-subscriptions",
    body: {
      webhook_id: (await freshWebhook()).id,
      source_type: "SPACE",
      source_id: await freshSpace(),
      event: "ONLINE_TASK_RUN_FAILED",
    },
  }));
  add("get_webhook_subscription", "prompt", async () => ({
    method: "GET",
    path: `/v2/webhook-subscriptions/${(await freshSubscription()).id}`,
  }));
  add("delete_webhook_subscription", "prompt", async () => ({
    method: "DELETE",
    path: `/v2/webhook-subscriptions/${(await freshSubscription()).id}`,
  }));
  add("list_webhook_subscriptions", "all", async () => ({
    method: "GET",
    path: "/v2/webhook-subscriptions",
  }));
  add("list_webhook_subscriptions", "one source", async () => {
    const s = await freshSubscription();
    return {
      method: "GET",
      path: `/v2/webhook-subscriptions?source_type=PROMPT&source_id=${s.source_id}`,
    };
  });

  // Tasks of each type — CODE_EVALUATION on a dataset's experiment (a managed code evaluator,
  // the kind task-runner executes), TEMPLATE_EVALUATION on a project, RUN_EXPERIMENT with an
  // LLM_GENERATION configuration — and their runs: COMPLETED, CANCELLED (everything already
  // labeled), FAILED (kinds not executed yet) and cancelled while PENDING or RUNNING.
  const freshIntegration = async () =>
    (await asAdmin("POST", "/v2/ai-integrations", { name: unique(), provider: "OPEN_AI" }))
      .id as string;
  /** A dataset of `size` examples in a fresh space, an experiment with a run on each, an evaluator. */
  const taskExperiment = async (size = 3) => {
    const space = await freshSpace();
    const e = await sharedTaskExperiment(asAdmin, space, unique, size);
    return { space, ...e, evaluatorId: await exactMatchEvaluator(asAdmin, space, unique()) };
  };
  const llmGeneration = (aiIntegrationId: string) => ({
    experiment_type: "LLM_GENERATION",
    ai_integration_id: aiIntegrationId,
    model_name: "gpt-4o",
    messages: [{ role: "USER", content: "Answer {input}" }],
    input_variable_format: "F_STRING",
    invocation_parameters: { temperature: 0 },
  });
  const taskBodies: Record<string, (size?: number) => Promise<Json>> = {
    CODE_EVALUATION: async (size) => {
      const e = await taskExperiment(size);
      return {
        type: "CODE_EVALUATION",
        name: unique(),
        dataset_id: e.datasetId,
        experiment_ids: [e.experimentId],
        evaluators: [{ evaluator_id: e.evaluatorId }],
      };
    },
    TEMPLATE_EVALUATION: async () => {
      const space = await freshSpace();
      const project = await asAdmin("POST", "/v2/projects", { space_id: space, name: unique() });
      const evaluator = await asAdmin("POST", "/v2/evaluators", {
        space_id: space,
        name: unique(),
        type: "TEMPLATE",
        version: {
          commit_message: "c",
          template_config: {
            name: "relevance",
            template: "Is {output} relevant to {input}?",
            include_explanations: true,
            use_function_calling_if_available: false,
            classification_choices: { relevant: 1, irrelevant: 0 },
            llm_config: {
              ai_integration_id: await freshIntegration(),
              model_name: "gpt-4o",
              invocation_parameters: {},
              provider_parameters: {},
            },
          },
        },
      });
      return {
        type: "TEMPLATE_EVALUATION",
        name: unique(),
        project_id: project.id,
        sampling_rate: 0.5,
        is_continuous: false,
        query_filter: "attributes.openinference.span.kind = 'LLM'",
        evaluators: [
          { evaluator_id: evaluator.id, column_mappings: { input: "attributes.input.value" } },
        ],
      };
    },
    RUN_EXPERIMENT: async () => {
      const e = await taskExperiment();
      return {
        type: "RUN_EXPERIMENT",
        name: unique(),
        dataset_id: e.datasetId,
        run_configuration: llmGeneration(await freshIntegration()),
      };
    },
  };
  const freshTask = async (type: string, size?: number) =>
    asAdmin("POST", "/v2/tasks", await taskBodies[type]!(size));
  /** What a trigger of each type takes (a project task's first run needs its start). */
  const triggerBody = (type: string): Json =>
    type === "RUN_EXPERIMENT"
      ? { experiment_name: unique(), max_examples: 2 }
      : type === "TEMPLATE_EVALUATION"
        ? { data_start_time: new Date(Date.now() - 3_600_000).toISOString(), max_spans: 100 }
        : {};
  const finished = async (runId: string): Promise<Json> => {
    for (let i = 0; i < 600; i++) {
      const run = await asAdmin("GET", `/v2/task-runs/${runId}`);
      if (["COMPLETED", "FAILED", "CANCELLED"].includes(run.status)) return run;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`task run ${runId} did not finish`);
  };
  const finishedRun = async (type: string, again = false) => {
    const task = await freshTask(type);
    let run = await finished(
      (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, triggerBody(type))).id,
    );
    if (again)
      run = await finished(
        (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, triggerBody(type))).id,
      );
    return { task, run };
  };
  for (const type of Object.keys(taskBodies)) {
    add("create_task", type, async () => ({
      method: "POST",
      path: "/v2/tasks",
      body: await taskBodies[type]!(),
    }));
    add("get_task", type, async () => ({
      method: "GET",
      path: `/v2/tasks/${(await freshTask(type)).id}`,
    }));
    add("trigger_task_run", type, async () => ({
      method: "POST",
      path: `/v2/tasks/${(await freshTask(type)).id}/trigger`,
      body: triggerBody(type),
    }));
  }
  add("get_task", "CODE_EVALUATION after a run", async () => ({
    method: "GET",
    path: `/v2/tasks/${(await finishedRun("CODE_EVALUATION")).task.id}`,
  }));
  add("trigger_task_run", "CODE_EVALUATION, no body", async () => ({
    method: "POST",
    path: `/v2/tasks/${(await freshTask("CODE_EVALUATION")).id}/trigger`,
  }));
  add("update_task", "CODE_EVALUATION name", async () => ({
    method: "PATCH",
    path: `/v2/tasks/${(await freshTask("CODE_EVALUATION")).id}`,
    body: { name: unique() },
  }));
  add("update_task", "TEMPLATE_EVALUATION every field", async () => ({
    method: "PATCH",
    path: `/v2/tasks/${(await freshTask("TEMPLATE_EVALUATION")).id}`,
    body: { name: unique(), sampling_rate: 1, is_continuous: true, query_filter: null },
  }));
  // Its name only: the gateway refuses a run_configuration change (400, "changing
  // run_configuration is not supported"; tasks.proto's UpdateTaskRequest cannot carry one).
  add("update_task", "RUN_EXPERIMENT name", async () => ({
    method: "PATCH",
    path: `/v2/tasks/${(await freshTask("RUN_EXPERIMENT")).id}`,
    body: { name: unique() },
  }));
  add("delete_task", "fresh", async () => ({
    method: "DELETE",
    path: `/v2/tasks/${(await freshTask("CODE_EVALUATION")).id}`,
  }));
  add("get_task_run", "COMPLETED", async () => ({
    method: "GET",
    path: `/v2/task-runs/${(await finishedRun("CODE_EVALUATION")).run.id}`,
  }));
  add("get_task_run", "CANCELLED, everything already labeled", async () => ({
    method: "GET",
    path: `/v2/task-runs/${(await finishedRun("CODE_EVALUATION", true)).run.id}`,
  }));
  // A project's TEMPLATE run (its project has no spans: COMPLETED with nothing to evaluate) and
  // a RUN_EXPERIMENT run (its provider unreachable here: COMPLETED, each example an error).
  for (const type of ["TEMPLATE_EVALUATION", "RUN_EXPERIMENT"])
    add("get_task_run", `finished, ${type}`, async () => ({
      method: "GET",
      path: `/v2/task-runs/${(await finishedRun(type)).run.id}`,
    }));
  add("get_task_run", "PENDING", async () => ({
    method: "GET",
    path: `/v2/task-runs/${
      (
        await asAdmin(
          "POST",
          `/v2/tasks/${(await freshTask("CODE_EVALUATION")).id}/trigger`,
          triggerBody("CODE_EVALUATION"),
        )
      ).id
    }`,
  }));
  // Runs of task kinds not executed yet fail at once, so the run cancelled is a dataset run of
  // 1000 items queued behind two others like it (task-runner works on two at once): PENDING,
  // or RUNNING if one of those has finished already; either cancels with 200.
  add("cancel_task_run", "a dataset run of 1000 items, queued behind two", async () => {
    const e = await taskExperiment(1000);
    const tasks: string[] = [];
    for (let i = 0; i < 3; i++)
      tasks.push(
        (
          await asAdmin("POST", "/v2/tasks", {
            type: "CODE_EVALUATION",
            name: unique(),
            dataset_id: e.datasetId,
            experiment_ids: [e.experimentId],
            evaluators: [{ evaluator_id: e.evaluatorId }],
          })
        ).id,
      );
    // Each evaluates every item (none skipped as labeled by the others).
    const runs: string[] = [];
    for (const task of tasks)
      runs.push(
        (await asAdmin("POST", `/v2/tasks/${task}/trigger`, { override_evaluations: true })).id,
      );
    return { method: "POST", path: `/v2/task-runs/${runs[2]}/cancel` };
  });
  add("list_task_runs", "COMPLETED and CANCELLED", async () => ({
    method: "GET",
    path: `/v2/tasks/${(await finishedRun("CODE_EVALUATION", true)).task.id}/runs`,
  }));
  add("list_task_runs", "FAILED, a page of 1", async () => {
    const { task } = await finishedRun("RUN_EXPERIMENT", true);
    return { method: "GET", path: `/v2/tasks/${task.id}/runs?status=FAILED&limit=1` };
  });
  add("list_tasks", "all", async () => ({ method: "GET", path: "/v2/tasks" }));
  add("list_tasks", "one type, a page of 1", async () => ({
    method: "GET",
    path: "/v2/tasks?type=RUN_EXPERIMENT&limit=1",
  }));
  add("list_tasks", "one dataset", async () => {
    const task = await freshTask("CODE_EVALUATION");
    return { method: "GET", path: `/v2/tasks?dataset_id=${task.dataset_id}` };
  });
  add("list_tasks", "one project", async () => {
    const task = await freshTask("TEMPLATE_EVALUATION");
    return { method: "GET", path: `/v2/tasks?project_id=${task.project_id}` };
  });
  return out;
}

const { document } = loadDocument();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  HTTP_METHODS.flatMap((method) => {
    const op = item[method] as ({ operationId?: string } & Record<string, unknown>) | undefined;
    return op?.operationId
      ? [
          {
            id: op.operationId,
            method: method.toUpperCase(),
            path,
            // Argus's own operations, beside the public API's: the SDK has none of them.
            extension: op["x-argus-extension"] === true,
          },
        ]
      : [];
  }),
);

/** What the SDK's client makes of the answers (contract.py), one entry per answer. */
async function sdk(args: string[], input?: unknown): Promise<unknown> {
  const child = execFile(python, ["test/python/contract.py", ...args], {
    cwd: root,
    maxBuffer: 64 << 20,
  });
  child.stdin!.end(input === undefined ? "" : JSON.stringify(input));
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on("close", r));
  if (code !== 0) throw new Error(`contract.py ${args.join(" ")}: exit ${code}\n${err}`);
  return JSON.parse(out);
}

/** One call, as the admin unless the recipe names a key; the answer raw (the SDK reads text). */
async function call(req: Request): Promise<{ status: number; type: string | null; text: string }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${req.key ?? api.stack.apiKey}`,
  };
  if (req.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(api.stack.baseUrl + req.path, {
    method: req.method,
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

beforeAll(async () => {
  await ensurePythonSdk();
  api = await startApi();
  db = identityDb(api);
  orgId = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
}, 300_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

it("every operation's answers parse with the SDK's generated models", async () => {
  const sdkOps = (await sdk(["operations"])) as Record<string, SdkOperation>;
  const table = recipes();
  const failures: string[] = [];

  for (const op of operations) {
    const known = sdkOps[op.id];
    if (!known) {
      if (!NOT_IN_SDK[op.id] && !op.extension)
        failures.push(`${op.id}: the SDK has no such operation`);
    } else {
      if (op.extension) failures.push(`${op.id}: the SDK has it, it is no extension of Argus's`);
      if (NOT_IN_SDK[op.id])
        failures.push(`${op.id}: the SDK knows it now, remove it from NOT_IN_SDK`);
      if (known.method !== op.method || known.path !== op.path)
        failures.push(
          `${op.id}: SDK calls ${known.method} ${known.path}, we serve ${op.method} ${op.path}`,
        );
    }
    if (!table[op.id]) failures.push(`${op.id}: no recipe in sdk-contract.e2e.test.ts`);
  }
  for (const id of Object.keys(table))
    if (!operations.some((op) => op.id === id)) failures.push(`${id}: a recipe of no operation`);
  // Every operation of the SDK is served, at the method and path it calls.
  const served = Object.entries(sdkOps).filter(([id, sdkOp]) =>
    operations.some((op) => op.id === id && op.method === sdkOp.method && op.path === sdkOp.path),
  );
  console.log(
    `sdk contract: ${served.length} of ${Object.keys(sdkOps).length} SDK operations served`,
  );
  for (const id of Object.keys(sdkOps))
    if (!served.some(([s]) => s === id))
      failures.push(`${id}: an SDK operation Argus does not serve`);

  // Lists last, so that they answer with every kind the other variants made; each list is
  // walked page after page.
  const order = [...operations].sort(
    (a, b) => Number(a.id.startsWith("list_")) - Number(b.id.startsWith("list_")),
  );
  const answers: Answer[] = [];
  for (const op of order) {
    for (const [variant, recipe] of Object.entries(table[op.id] ?? {})) {
      let req: Request;
      try {
        req = await recipe();
      } catch (err) {
        failures.push(`${op.id} (${variant}): the recipe failed: ${String(err)}`);
        continue;
      }
      for (let page = 0; page < 50; page++) {
        const res = await call(req);
        if (res.status < 200 || res.status >= 300) {
          failures.push(`${op.id} (${variant}): ${res.status} ${res.text.slice(0, 300)}`);
          break;
        }
        answers.push({
          operation_id: op.id,
          variant: page === 0 ? variant : `${variant}, page ${page + 1}`,
          status: res.status,
          content_type: res.type,
          body: res.text,
        });
        const next = req.method === "GET" && JSON.parse(res.text).pagination?.next_cursor;
        if (!next) break;
        const url = new URL(req.path, api.stack.baseUrl);
        url.searchParams.set("cursor", next);
        req = { ...req, path: url.pathname + url.search };
      }
    }
  }

  const checked = answers.filter((a) => sdkOps[a.operation_id]);
  const parsed = (await sdk(["parse"], checked)) as Parsed[];
  parsed.forEach((p, i) => {
    if (p.error)
      failures.push(
        `${p.operation_id} (${checked[i]!.variant}): ${p.status} as ${p.model}: ${p.error}`,
      );
  });
  const covered = new Set(checked.map((a) => a.operation_id));
  console.log(
    `sdk contract: ${answers.length} answers of ${new Set(answers.map((a) => a.operation_id)).size} operations, ` +
      `${checked.length} parsed by the SDK (${covered.size} operations; ` +
      `${answers.filter((a) => a.variant.includes(", page ")).length} further list pages)`,
  );
  expect(failures).toEqual([]);
}, 600_000);

it("after every operation, the audit log names each resource by its public id", async () => {
  const log = await wholeAuditLog(api);
  const kinds = new Set(log.map((e) => e.operation_name as string));
  // Every kind of change the operations above made, not a handful.
  expect(kinds.size).toBeGreaterThan(40);
  // An AGENT integration's presets are named by ids of their own, answered as they are kept.
  const opaque = /^Integration(Created|Updated) variables\.request_presets\[\]\.id$/;
  expect(
    storedIdsIn(log)
      .filter((l) => !opaque.test(l))
      .join("\n"),
  ).toBe("");
}, 120_000);

it("the checker itself rejects what the SDK cannot parse", async () => {
  const at = "2026-01-01T00:00:00Z";
  const integration = {
    id: "x",
    name: "n",
    provider: "AWS_BEDROCK",
    has_api_key: false,
    enable_default_models: false,
    function_calling_enabled: false,
    auth_type: "DEFAULT",
    scopings: [],
    created_at: at,
    updated_at: at,
    created_by_user_id: "u",
  };
  const answers = [
    // Parses: the control.
    { operation_id: "get_ai_integration", body: integration },
    // A provider metadata without its discriminator.
    {
      operation_id: "get_ai_integration",
      body: { ...integration, provider_metadata: { role_arn: "arn:aws:iam::1:role/x" } },
    },
    // An enum value the SDK does not know.
    { operation_id: "get_ai_integration", body: { ...integration, auth_type: "KERBEROS" } },
    // A field of the wrong type.
    { operation_id: "get_ai_integration", body: { ...integration, has_api_key: "yes" } },
  ].map((a) => ({
    ...a,
    status: 200,
    content_type: "application/json",
    body: JSON.stringify(a.body),
  }));
  const parsed = (await sdk(["parse"], answers)) as Parsed[];
  expect(parsed.map((p) => p.error === null)).toEqual([true, false, false, false]);
  expect(parsed[0]!.model).toBe("AiIntegration");
  // A status the SDK does not expect for the operation, and a body where it expects none.
  const [created, body] = (await sdk(
    ["parse"],
    [
      {
        operation_id: "get_ai_integration",
        status: 201,
        content_type: "application/json",
        body: "{}",
      },
      { operation_id: "delete_ai_integration", status: 204, content_type: null, body: "{}" },
    ],
  )) as Parsed[];
  expect(created!.error).toMatch(/status 201 has no model/);
  expect(body!.error).toMatch(/expects no body/);
}, 60_000);
