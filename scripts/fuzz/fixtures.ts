/**
 * Test data for the fuzzer. Ids are opaque and typed, and many bodies are unions, so a fuzzer
 * that generates a well-formed id almost never names something that exists, and its schema
 * inference cannot always tell which earlier response holds one. The admin creates a few of
 * everything through the API and hands the ids to Schemathesis as dictionaries: each path id
 * (and each body field naming one) takes one of them half the time, a generated value otherwise.
 * The fuzzer deletes what it finds, whole spaces included, hence several of each, in several
 * spaces.
 */
import { INIT_ADMIN_EMAIL } from "@argus/testkit";
import { randomBytes } from "node:crypto";

type Dictionaries = Record<string, string[]>;

interface Json {
  [k: string]: unknown;
}

type Call = ((method: string, path: string, body?: Json) => Promise<Json>) & {
  /** Sends `n` spans of one trace to a project of the space over OTLP/HTTP (JSON). */
  spans(
    spaceId: string,
    project: string,
    n: number,
  ): Promise<{ spanIds: string[]; traceId: string }>;
};

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

function caller(baseUrl: string, key: string): Call {
  const call = async (method: string, path: string, body?: Json): Promise<Json> => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await res.json().catch(() => ({}))) as Json;
    if (!res.ok)
      throw new Error(`fixture ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const spans: Call["spans"] = async (spaceId, project, n) => {
    const traceId = hex(16);
    const spanIds = Array.from({ length: n }, () => hex(8));
    const start = BigInt(Date.now() - 60_000) * 1_000_000n;
    const body = {
      resourceSpans: [
        {
          resource: {
            attributes: [{ key: "openinference.project.name", value: { stringValue: project } }],
          },
          scopeSpans: [
            {
              spans: spanIds.map((spanId, i) => ({
                traceId,
                spanId,
                ...(i > 0 ? { parentSpanId: spanIds[0] } : {}),
                name: `fuzz span ${i}`,
                startTimeUnixNano: String(start + BigInt(i) * 1_000_000n),
                endTimeUnixNano: String(start + BigInt(i + 1) * 1_000_000n),
                attributes: [{ key: "openinference.span.kind", value: { stringValue: "LLM" } }],
              })),
            },
          ],
        },
      ],
    };
    const res = await fetch(`${baseUrl}/v1/traces`, {
      method: "POST",
      headers: {
        authorization: key,
        "arize-space-id": spaceId,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    const answer = await res.text();
    if (!res.ok || answer.includes("rejectedSpans"))
      throw new Error(`fixture POST /v1/traces: ${res.status} ${answer}`);
    return { spanIds, traceId };
  };
  return Object.assign(call, { spans });
}

async function times(n: number, make: (i: number) => Promise<Json>): Promise<Json[]> {
  const out: Json[] = [];
  for (let i = 0; i < n; i++) out.push(await make(i));
  return out;
}
const idsOf = (items: Json[], field = "id") => items.map((i) => String(i[field]));

const MEMBER = { type: "PREDEFINED", name: "MEMBER" };

/** Users (active, and invited ones for resend), roles, organizations, keys, integrations. */
async function accountFixtures(call: Call, orgId: string, name: (w: string, i: number) => string) {
  const user = (i: number, mode: string) =>
    call("POST", "/v2/users", {
      name: name("user", i),
      email: `${name("user", i).replace(/\W+/g, "-")}-${mode.toLowerCase()}@argus.test`,
      role: MEMBER,
      invite_mode: mode,
    });
  const active = idsOf(await times(3, (i) => user(i, "NONE")));
  const invited = idsOf(await times(2, (i) => user(i, "EMAIL_LINK")));
  for (const u of active)
    await call("POST", `/v2/organizations/${orgId}/users`, { user_id: u, role: MEMBER });
  const roles = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/roles", { name: name("role", i), permissions: ["TAG_READ"] }),
    ),
  );
  const orgs = idsOf(
    await times(2, (i) => call("POST", "/v2/organizations", { name: name("org", i) })),
  );
  const keys = idsOf(
    await times(2, (i) => call("POST", "/v2/api-keys", { key_type: "USER", name: name("key", i) })),
  );
  // AI integrations (the LLM integrations of /v2/integrations too) and an AGENT one.
  const integrations = idsOf([
    ...(await times(2, (i) =>
      call("POST", "/v2/ai-integrations", { name: name("integration", i), provider: "OPEN_AI" }),
    )),
    await call("POST", "/v2/integrations", {
      type: "AGENT",
      name: name("agent", 0),
      config: { endpoint: "https://agent.example.com/run", input_schema: { type: "object" } },
    }),
  ]);
  return { orgId, active, invited, roles, orgs, keys, integrations };
}

type Account = Awaited<ReturnType<typeof accountFixtures>>;

/** Everything that lives in a space, in `spaceId`. */
async function spaceFixtures(
  call: Call,
  spaceId: string,
  account: Account,
  withMembers: boolean,
  name: (w: string, i: number) => string,
) {
  const inSpace = { space_id: spaceId };
  const tags = idsOf(
    await times(3, (i) => call("POST", "/v2/tags", { ...inSpace, name: name("tag", i) })),
  );
  const projects = idsOf(
    await times(3, (i) => call("POST", "/v2/projects", { ...inSpace, name: name("project", i) })),
  );
  // Spans of the first project, for span lists and the queues' SPAN records (which must exist).
  const sent = await call.spans(spaceId, name("project", 0), 3);
  await call("POST", "/v2/resource-restrictions", { resource_id: projects[2] });
  const prompts = await times(2, (i) =>
    call("POST", "/v2/prompts", {
      ...inSpace,
      name: name("prompt", i),
      version: {
        commit_message: "initial",
        provider: "OPEN_AI",
        model: "gpt-4o",
        messages: [{ role: "USER", content: "Hello {name}" }],
      },
    }),
  );
  const promptVersions = prompts.map((p) => String((p.version as Json).id));
  // Tasks of the first project (its spans), one of them run once.
  const codeEvaluator = await call("POST", "/v2/evaluators", {
    ...inSpace,
    name: name("code evaluator", 0),
    type: "CODE",
    version: {
      commit_message: "initial",
      code_config: {
        type: "MANAGED",
        name: "exact_match",
        managed_evaluator: "EXACT_MATCH",
        variables: ["output", "expected"],
      },
    },
  });
  const tasks = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/tasks", {
        type: "CODE_EVALUATION",
        name: name("task", i),
        project_id: projects[0],
        evaluators: [{ evaluator_id: String(codeEvaluator.id) }],
      }),
    ),
  );
  const taskRuns = idsOf([
    await call("POST", `/v2/tasks/${tasks[0]}/trigger`, {
      data_start_time: new Date(Date.now() - 3_600_000).toISOString(),
    }),
  ]);
  // Webhooks of the organization (to a name that does not resolve: a test delivery is a 502),
  // each subscribed to the first prompt's new versions.
  const webhooks = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/webhooks", {
        organization_id: account.orgId,
        name: name("webhook", i),
        url: "https://hooks.argus.test/fuzz",
        auth_type: i === 0 ? "BEARER" : "HMAC_SHA256",
      }),
    ),
  );
  const subscriptions = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/webhook-subscriptions", {
        webhook_id: webhooks[i],
        source_type: "PROMPT",
        source_id: String(prompts[0]!.id),
        event: "PROMPT_VERSION_CREATED",
      }),
    ),
  );
  for (const v of promptVersions)
    await call("PUT", `/v2/prompt-versions/${v}/labels`, { labels: ["production", "staging"] });
  const evaluators = await times(2, (i) =>
    call("POST", "/v2/evaluators", {
      ...inSpace,
      name: name("evaluator", i),
      type: "TEMPLATE",
      version: {
        commit_message: "initial",
        template_config: {
          name: "relevance",
          template: "Is {output} relevant?",
          include_explanations: false,
          use_function_calling_if_available: false,
          classification_choices: { relevant: 1, irrelevant: 0 },
          llm_config: {
            ai_integration_id: account.integrations[0],
            model_name: "gpt-4o",
            invocation_parameters: {},
            provider_parameters: {},
          },
        },
      },
    }),
  );
  const configs = await times(3, (i) =>
    call("POST", "/v2/annotation-configs", {
      ...inSpace,
      name: name("config", i),
      annotation_config_type: "FREEFORM",
    }),
  );
  const span = {
    record_type: "SPAN",
    project_id: projects[0],
    start_time: new Date(Date.now() - 86_400_000).toISOString(),
    end_time: new Date(Date.now() + 3_600_000).toISOString(),
    span_ids: sent.spanIds,
  };
  const queues = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/annotation-queues", {
        ...inSpace,
        name: name("queue", i),
        annotation_config_ids: idsOf(configs),
        annotator_emails: [INIT_ADMIN_EMAIL],
        record_sources: [span],
      }),
    ),
  );
  const records: string[] = [];
  for (const q of queues)
    records.push(
      ...idsOf((await call("GET", `/v2/annotation-queues/${q}/records`)).records as Json[]),
    );
  const datasets = await times(2, (i) =>
    call("POST", "/v2/datasets", {
      ...inSpace,
      name: name("dataset", i),
      examples: [{ question: "2+2?", answer: "4" }, { question: "capital of Spain?" }],
    }),
  );
  const datasetVersions: string[] = [];
  const examples: string[] = [];
  for (const d of datasets) {
    const got = await call("GET", `/v2/datasets/${String(d.id)}`);
    datasetVersions.push(...idsOf(got.versions as Json[]));
    const page = await call("GET", `/v2/datasets/${String(d.id)}/examples`);
    examples.push(...idsOf(page.examples as Json[]));
  }
  const experiments = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/experiments", {
        name: name("experiment", i),
        ...(i === 0
          ? {
              dataset_id: String(datasets[0]!.id),
              experiment_runs: [{ example_id: examples[0], output: "4" }],
            }
          : { ...inSpace, experiment_runs: [{ output: "free" }] }),
      }),
    ),
  );
  // Monitors of the first project, and a dashboard charting one of them beside a text widget:
  // their create bodies are unions too rich for generated values to get past 422.
  const monitors = idsOf(
    await times(2, (i) =>
      call("POST", "/v2/monitors", {
        name: name("monitor", i),
        type: "TRACING",
        project_id: projects[0],
        metric: "P95",
        dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
        threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 300 },
        evaluation_window_length_seconds: 60,
        manual_evaluation_enabled: true,
      }),
    ),
  );
  const dashboard = String(
    (await call("POST", "/v2/dashboards", { ...inSpace, name: name("dashboard", 0) })).id,
  );
  const widgets = idsOf([
    await call("POST", `/v2/dashboards/${dashboard}/widgets`, {
      type: "LINE_CHART",
      widget_type: "MONITOR",
      monitor_id: monitors[0],
    }),
    await call("POST", `/v2/dashboards/${dashboard}/widgets`, {
      type: "TEXT",
      title: name("widget", 1),
      content: "Page the on-call.",
    }),
  ]);
  // One binding per user and space: two users get custom roles, the third is added as a member.
  const bindings = withMembers
    ? idsOf(
        await times(2, (i) =>
          call("POST", "/v2/role-bindings", {
            role_id: account.roles[i],
            user_id: account.active[i],
            resource_type: "SPACE",
            resource_id: spaceId,
          }),
        ),
      )
    : [];
  if (withMembers)
    await call("POST", `/v2/spaces/${spaceId}/users`, { user_id: account.active[2], role: MEMBER });
  return {
    spaces: [spaceId],
    tags,
    projects,
    spans: sent.spanIds,
    restricted: [projects[2]!],
    prompts: idsOf(prompts),
    prompt_versions: promptVersions,
    evaluators: idsOf(evaluators),
    evaluator_versions: evaluators.map((e) => String((e.version as Json).id)),
    configs: idsOf(configs),
    config_names: idsOf(configs, "name"),
    queues,
    records,
    bindings,
    datasets: idsOf(datasets),
    dataset_versions: datasetVersions,
    examples,
    experiments,
    webhooks,
    subscriptions,
    tasks,
    task_runs: taskRuns,
    monitors,
    dashboards: [dashboard],
    widgets,
  };
}

/**
 * One set of fixtures: account-level ones (users, roles, organizations, keys, integrations)
 * unless `account` lends them, and those of each space in `spaceIds`, its users bound there when
 * the set has users of its own (one binding per user and space).
 */
async function fixtureSet(
  call: Call,
  opts: { orgId: string; spaceIds: string[]; tag: string; account?: Account },
): Promise<{ dictionaries: Dictionaries; account: Account }> {
  const name = (what: string, i: number) => `fuzz ${opts.tag} ${what} ${i}`;
  const account = opts.account ?? (await accountFixtures(call, opts.orgId, name));
  const out: Dictionaries = {
    users: [...account.active, ...account.invited],
    roles: account.roles,
    orgs: account.orgs,
    home_org: [opts.orgId],
    keys: account.keys,
    integrations: account.integrations,
    labels: ["production", "staging"],
  };
  for (const [i, spaceId] of opts.spaceIds.entries())
    for (const [k, v] of Object.entries(
      await spaceFixtures(call, spaceId, account, !opts.account, (w, j) => name(`${w} s${i}`, j)),
    ))
      out[k] = [...(out[k] ?? []), ...v];
  return { dictionaries: out, account };
}

export interface Fixtures {
  /** What operations read, update or attach to. */
  kept: Dictionaries;
  /** Per operation that deletes or replaces what it names: its own victims, so the others keep theirs. */
  doomed: Record<string, Dictionaries>;
}

/** Operations that delete or replace what they name (detaching tags only detaches). */
const DOOMED =
  /^(DELETE (?!.*\/tags$)|PUT \/v2\/prompt-versions\/|PATCH \/v2\/annotation-queues\/)/;
/** Path parameters naming account-level things: an operation taking one gets its own. */
const ACCOUNT_LEVEL = /\{(user_id|org_id|role_id|integration_id|binding_id|api_key_id)\}/;

/**
 * The fixtures of one run, made by the admin: the kept set in `kept` spaces, and one doomed set
 * per destructive operation of `operations`, each in a space of its own from `doomedSpace()`.
 */
export async function createFixtures(
  baseUrl: string,
  adminKey: string,
  opts: {
    orgId: string;
    kept: string[];
    doomedSpace: () => Promise<string>;
    operations: string[];
    tag: string;
  },
): Promise<Fixtures> {
  const call = caller(baseUrl, adminKey);
  const kept = await fixtureSet(call, {
    orgId: opts.orgId,
    spaceIds: opts.kept,
    tag: `${opts.tag} kept`,
  });
  const doomed: Record<string, Dictionaries> = {};
  for (const [i, label] of opts.operations.filter((o) => DOOMED.test(o)).entries()) {
    const own = ACCOUNT_LEVEL.test(label) || label.startsWith("DELETE /v2/spaces/");
    const set = await fixtureSet(call, {
      orgId: opts.orgId,
      spaceIds: [await opts.doomedSpace()],
      tag: `${opts.tag} doomed ${i}`,
      ...(own ? {} : { account: kept.account }),
    });
    doomed[label] = set.dictionaries;
  }
  return { kept: kept.dictionaries, doomed };
}

/** A fresh space of `orgId` for fixtures. */
export async function fixtureSpace(baseUrl: string, adminKey: string, orgId: string, name: string) {
  const space = await caller(baseUrl, adminKey)("POST", "/v2/spaces", {
    organization_id: orgId,
    name: `fuzz ${name}`,
  });
  return String(space.id);
}

const PATH_PARAMS: Record<string, string> = {
  space_id: "spaces",
  tag_id: "tags",
  project_id: "projects",
  resource_id: "restricted",
  integration_id: "integrations",
  prompt_id: "prompts",
  label_name: "labels",
  evaluator_id: "evaluators",
  annotation_config_id: "configs",
  annotation_queue_id: "queues",
  annotation_queue_record_id: "records",
  user_id: "users",
  role_id: "roles",
  binding_id: "bindings",
  org_id: "orgs",
  api_key_id: "keys",
  dataset_id: "datasets",
  experiment_id: "experiments",
  webhook_id: "webhooks",
  subscription_id: "subscriptions",
  task_id: "tasks",
  run_id: "task_runs",
  monitor_id: "monitors",
  dashboard_id: "dashboards",
  widget_id: "widgets",
};
const BODY_FIELDS: Record<string, string> = {
  space_id: "spaces",
  organization_id: "home_org",
  "tag_ids[*]": "tags",
  "annotation_config_ids[*]": "configs",
  "annotations[*].name": "config_names",
  "record_sources[*].project_id": "projects",
  "span_ids[*]": "spans",
  project_id: "projects",
  user_id: "users",
  role_id: "roles",
  ai_integration_id: "integrations",
  dataset_id: "datasets",
  dataset_version_id: "dataset_versions",
  "example_ids[*]": "examples",
  "examples[*].id": "examples",
  "experiment_runs[*].example_id": "examples",
  webhook_id: "webhooks",
  source_id: "prompts",
  monitor_id: "monitors",
  model_id: "projects",
};
// Not dataset_version_id: its schema is an anyOf with a $ref, which Schemathesis 4.32's
// dictionary check cannot resolve (a test execution error); the stateful links reach versions.
const QUERY_PARAMS: Record<string, string> = {
  dataset_id: "datasets",
};
/** Path parameters whose name means something narrower on some paths. */
const PER_PATH: [RegExp, string, string][] = [
  [/^\/v2\/prompt-versions\//, "version_id", "prompt_versions"],
  [/^\/v2\/evaluator-versions\//, "version_id", "evaluator_versions"],
  // Only the organization the fixture users were added to has them as members.
  [/^\/v2\/organizations\/\{org_id\}\/users/, "org_id", "home_org"],
];
/**
 * Schemathesis configuration: the dictionaries, and for each operation (`METHOD /path`) one
 * table binding its parameters to its set (the kept one, or its own doomed one), half the time.
 */
export function fixturesToml(f: Fixtures, operations: string[]): string {
  const sets: [string, Dictionaries][] = [
    ["kept", f.kept],
    ...Object.values(f.doomed).map((d, i): [string, Dictionaries] => [`doomed${i}`, d]),
  ];
  const setOf = new Map(Object.keys(f.doomed).map((label, i) => [label, `doomed${i}`]));
  const lines: string[] = [];
  for (const [set, d] of sets)
    for (const [k, values] of Object.entries(d))
      if (values.length > 0)
        lines.push(`[dictionaries.${set}_${k}]`, `values = ${JSON.stringify(values)}`, "");
  const has = (set: string, dict: string) =>
    (sets.find(([name]) => name === set)?.[1][dict]?.length ?? 0) > 0;
  for (const label of operations) {
    const set = setOf.get(label) ?? "kept";
    const path = label.slice(label.indexOf(" ") + 1);
    const paths = { ...PATH_PARAMS };
    for (const [regex, param, dict] of PER_PATH) if (regex.test(path)) paths[param] = dict;
    // A set without something (a doomed set lending the kept users has no bindings) lends the kept one's.
    const bind = ([key, dict]: [string, string]) => {
      const from = has(set, dict) ? set : "kept";
      return has(from, dict)
        ? [`"${key}" = { dictionary = "${from}_${dict}", probability = 0.5 }`]
        : [];
    };
    lines.push(
      "[[operations]]",
      `include-name = ${JSON.stringify(label)}`,
      "[operations.parameters]",
      ...Object.entries(paths).flatMap(([p, dict]) => bind([`path.${p}`, dict])),
      ...Object.entries(QUERY_PARAMS).flatMap(([q, dict]) => bind([`query.${q}`, dict])),
      ...Object.entries(BODY_FIELDS).flatMap(([b, dict]) => bind([`body.${b}`, dict])),
      "",
    );
  }
  return lines.join("\n");
}
