/**
 * Runs that call customer endpoints: REMOTE evaluators (EVALUATOR integrations) in a
 * CODE_EVALUATION task, and AGENT_CALL experiments (AGENT integrations) in a RUN_EXPERIMENT
 * task. The endpoints are a real HTTP server on loopback (the edge Argus does not own).
 */
import pg from "pg";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";
import { relevanceJudge, taskExperiment, untilRun } from "./tasks-support.ts";

interface Seen {
  path: string;
  headers: IncomingMessage["headers"];
  body: Json;
}

let api: Api;
let spaceId: string;
let server: Server;
let base: string;
let cloud: FakeLlm;
const seen: Seen[] = [];
/** Per path: how many more times it answers 503 before it answers. */
const failures = new Map<string, number>();
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

/** The endpoints: an evaluator comparing output to expected, an agent echoing, a refusal. */
function answer(path: string, body: Json): [number, unknown] {
  if (path.startsWith("/refuse")) return [400, { error: "no" }];
  if (path.startsWith("/evaluate")) {
    const match = body.output === body.expected;
    return [
      200,
      {
        label: match ? "correct" : "incorrect",
        score: match ? 1 : 0,
        explanation: `output ${String(body.output)}`,
      },
    ];
  }
  if (path.startsWith("/agent")) return [200, `answer to ${body.question} x${body.n}`];
  return [404, {}];
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString()));
    req.on("end", () => {
      const path = req.url ?? "/";
      const body = (text ? JSON.parse(text) : {}) as Json;
      seen.push({ path, headers: req.headers, body });
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        res.writeHead(503, { "retry-after": "0" }).end();
        return;
      }
      const [status, out] = answer(path.replace(/^\/slow/, ""), body);
      const reply = () =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(out));
      // Under /slow the endpoint takes its time: a run stays RUNNING meanwhile.
      if (path.startsWith("/slow")) setTimeout(reply, 3_000);
      else reply();
    });
  });
  base = `http://127.0.0.1:${await listenLocal(server)}`;
  // The cloud providers' model (Bedrock, Vertex) and Google's metadata server, on loopback.
  cloud = await startFakeLlm();
  api = await startApi({
    env: {
      ARGUS_TASK_ALLOW_LOOPBACK: "true",
      ARGUS_INTEGRATION_ALLOW_LOOPBACK: "true",
      ARGUS_TASK_VERTEX_ENDPOINT: cloud.root,
      GCE_METADATA_HOST: new URL(cloud.root).host,
      METADATA_SERVER_DETECTION: "assume-present",
    },
  });
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
}, 120_000);
afterAll(async () => {
  await api?.stop();
  await cloud?.close();
  await new Promise((r) => server?.close(r));
});

const integration = (type: "AGENT" | "EVALUATOR", path: string, inputSchema: Json) =>
  asAdmin("POST", "/v2/integrations", {
    type,
    name: unique(type.toLowerCase()),
    config: {
      endpoint: `${base}${path}`,
      headers: { authorization: "Bearer endpoint-secret" },
      input_schema: inputSchema,
    },
  });

const until = (runId: string) => untilRun(asAdmin, runId);

const remoteEvaluator = async (integrationId: string) =>
  asAdmin("POST", "/v2/evaluators", {
    space_id: spaceId,
    name: unique("remote"),
    type: "REMOTE",
    version: { commit_message: "v1", remote_config: { integration_id: integrationId } },
  });

describe("REMOTE evaluators", () => {
  it("each run's values go to the EVALUATOR endpoint, its answer becomes the evaluation", async () => {
    const schema = {
      type: "object",
      properties: { output: { type: "string" }, expected: { type: "string" } },
      required: ["output"],
    };
    const path = `/evaluate/${unique("e")}`;
    const endpoint = await integration("EVALUATOR", path, schema);
    const evaluator = await remoteEvaluator(endpoint.id);
    const e = await taskExperiment(asAdmin, spaceId, unique, 6);
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("remote-task"),
      dataset_id: e.datasetId,
      experiment_ids: [e.experimentId],
      evaluators: [{ evaluator_id: evaluator.id }],
    });
    failures.set(path, 2); // two 503s first: waited out
    const run = await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, {});
    const done = await until(run.id);
    expect(done).toMatchObject({ status: "COMPLETED", num_successes: 6, num_errors: 0 });

    const calls = seen.filter((s) => s.path === path);
    expect(calls).toHaveLength(6 + 2);
    // The header value reached the endpoint from the catalog, where it is sealed at rest.
    const db = new pg.Client({ connectionString: api.stack.env.DATABASE_URL });
    await db.connect();
    try {
      const stored = await db.query<{ headers: string }>(
        "select headers::text from catalog.integration_secrets",
      );
      expect(stored.rows.length).toBeGreaterThan(0);
      for (const r of stored.rows) {
        expect(r.headers).toMatch(/^"v1\./);
        expect(r.headers).not.toContain("endpoint-secret");
      }
    } finally {
      await db.end();
    }
    for (const c of calls) {
      expect(c.headers.authorization).toBe("Bearer endpoint-secret");
      expect(c.headers["user-agent"]).toBe("Argus-Tasks/1");
      expect(c.body.arize_metadata).toMatchObject({
        task_id: task.id,
        evaluator_id: evaluator.id,
        evaluator_name: evaluator.name,
      });
      expect(Object.keys(c.body).sort()).toEqual(["arize_metadata", "expected", "output"]);
    }
    const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
      .experiment_runs as Json[];
    const labels = runs.map((r) => r[`eval.${evaluator.name}.label`]);
    expect(labels.filter((l) => l === "correct")).toHaveLength(3);
    expect(labels.filter((l) => l === "incorrect")).toHaveLength(3);
    expect(runs.find((r) => r[`eval.${evaluator.name}.label`] === "correct")).toMatchObject({
      [`eval.${evaluator.name}.score`]: 1,
    });
  });

  it("a refusing endpoint, a value the schema refuses: item errors, never the run's failure", async () => {
    const refusing = await remoteEvaluator(
      (await integration("EVALUATOR", "/refuse", { type: "object" })).id,
    );
    // `output` must be a number here: "a0"… cannot be cast, so nothing is sent.
    const typed = await remoteEvaluator(
      (
        await integration("EVALUATOR", `/evaluate/${unique("typed")}`, {
          type: "object",
          properties: { output: { type: "number" } },
          required: ["output"],
        })
      ).id,
    );
    const e = await taskExperiment(asAdmin, spaceId, unique, 3);
    for (const evaluator of [refusing, typed]) {
      const task = await asAdmin("POST", "/v2/tasks", {
        type: "CODE_EVALUATION",
        name: unique("bad"),
        dataset_id: e.datasetId,
        experiment_ids: [e.experimentId],
        evaluators: [{ evaluator_id: evaluator.id }],
      });
      const done = await until((await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, {})).id);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 0, num_errors: 3 });
    }
    expect(seen.filter((s) => s.path.startsWith("/evaluate/typed"))).toHaveLength(0);
  });

  it("a TEMPLATE_EVALUATION task does not take a REMOTE evaluator (422)", async () => {
    const evaluator = await remoteEvaluator(
      (await integration("EVALUATOR", "/evaluate", { type: "object" })).id,
    );
    const e = await taskExperiment(asAdmin, spaceId, unique, 1);
    expectProblem(
      await api.req("POST", "/v2/tasks", {
        body: {
          type: "TEMPLATE_EVALUATION",
          name: unique("t"),
          dataset_id: e.datasetId,
          experiment_ids: [e.experimentId],
          evaluators: [{ evaluator_id: evaluator.id }],
        },
      }),
      422,
      "unprocessable-entity",
    );
  });
});

describe("AGENT_CALL experiments", () => {
  it("each example fills the input template, typed by the agent's schema; answers are the outputs", async () => {
    const path = `/agent/${unique("a")}`;
    const agent = await integration("AGENT", path, {
      type: "object",
      properties: { question: { type: "string" }, n: { type: "integer" }, note: {} },
      required: ["question"],
    });
    const dataset = await asAdmin("POST", "/v2/datasets", {
      space_id: spaceId,
      name: unique("agent-ds"),
      examples: [
        { input: "one", count: "1" },
        { input: "two", count: 2 },
        { input: "three", count: "three" },
      ],
    });
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "RUN_EXPERIMENT",
      name: unique("agent-task"),
      dataset_id: dataset.id,
      run_configuration: {
        experiment_type: "AGENT_CALL",
        integration_id: agent.id,
        input_template: { question: "{{input}}", n: "{{dataset.count}}", note: "q: {{input}}!" },
      },
    });
    const done = await until(
      (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, { experiment_name: unique("x") })).id,
    );
    // "three" is no integer: that example's run is an error; the others succeed.
    expect(done).toMatchObject({ status: "COMPLETED", num_successes: 2, num_errors: 1 });
    const calls = seen.filter((s) => s.path === path).map((s) => s.body);
    expect(calls.sort((a, b) => a.n - b.n)).toEqual([
      { question: "one", n: 1, note: "q: one!" },
      { question: "two", n: 2, note: "q: two!" },
    ]);
    const runs = (await asAdmin("GET", `/v2/experiments/${done.experiment_id}/runs?limit=100`))
      .experiment_runs as Json[];
    expect(runs.map((r) => r.output).sort()).toEqual(["answer to one x1", "answer to two x2"]);
    // The experiment names the agent that answered, in the list as in the get.
    const experiment = await asAdmin("GET", `/v2/experiments/${done.experiment_id}`);
    expect(experiment.integration_id).toBe(agent.id);
    const listed = (await asAdmin("GET", `/v2/experiments?dataset_id=${dataset.id}`))
      .experiments as Json[];
    expect(listed.map((e) => [e.id, e.integration_id])).toEqual([[experiment.id, agent.id]]);
  });

  it("names an AGENT integration (422 otherwise); one deleted since fails the run with the reason", async () => {
    const evaluatorIntegration = await integration("EVALUATOR", "/evaluate", { type: "object" });
    const dataset = await asAdmin("POST", "/v2/datasets", {
      space_id: spaceId,
      name: unique("agent-ds"),
      examples: [{ input: "one" }],
    });
    const agentTask = (integrationId: string) => ({
      type: "RUN_EXPERIMENT",
      name: unique("agent-task"),
      dataset_id: dataset.id,
      run_configuration: {
        experiment_type: "AGENT_CALL",
        integration_id: integrationId,
        input_template: { question: "{{input}}" },
      },
    });
    expectProblem(
      await api.req("POST", "/v2/tasks", { body: agentTask(evaluatorIntegration.id) }),
      422,
      "unprocessable-entity",
    );
    const nothing = Buffer.from(`Integration:${randomUUID()}`).toString("base64");
    expectProblem(
      await api.req("POST", "/v2/tasks", { body: agentTask(nothing) }),
      422,
      "unprocessable-entity",
    );
    const agent = await integration("AGENT", "/agent/gone", { type: "object" });
    const task = await asAdmin("POST", "/v2/tasks", agentTask(agent.id));
    expectProblem(
      await api.req("POST", `/v2/tasks/${task.id}/trigger`, {
        body: { experiment_name: unique("x"), query_filter: "input = " },
      }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("PATCH", `/v2/tasks/${task.id}`, {
        body: { run_configuration: agentTask(evaluatorIntegration.id).run_configuration },
      }),
      422,
      "unprocessable-entity",
    );
    await asAdmin("DELETE", `/v2/integrations/${agent.id}`);
    const done = await until(
      (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, { experiment_name: unique("x") })).id,
    );
    expect(done.status).toBe("FAILED");
    // Found gone when the run resolves it, or by the watcher of deletions before that.
    expect(done.failure_reason).toMatch(
      /integration_id: integration not found|^the run's integration .+ was deleted$/,
    );
  });
});

describe("a RUN_EXPERIMENT trigger's experiment_name", () => {
  it("already used on the dataset, or held by a run still making it, is 409; quotes and backslashes 400", async () => {
    const agent = await integration("AGENT", `/slow/agent/${unique("a")}`, { type: "object" });
    const dataset = async () =>
      asAdmin("POST", "/v2/datasets", {
        space_id: spaceId,
        name: unique("names-ds"),
        examples: [{ input: "one" }],
      });
    const taskOn = async (datasetId: string) =>
      asAdmin("POST", "/v2/tasks", {
        type: "RUN_EXPERIMENT",
        name: unique("names-task"),
        dataset_id: datasetId,
        run_configuration: {
          experiment_type: "AGENT_CALL",
          integration_id: agent.id,
          input_template: { question: "{{input}}" },
        },
      });
    const trigger = (taskId: string, experiment_name: string) =>
      api.req("POST", `/v2/tasks/${taskId}/trigger`, { body: { experiment_name } });
    const ds = await dataset();
    const [task, other] = [await taskOn(ds.id), await taskOn(ds.id)];

    // A run still making its experiment (the agent answers after 3 s) holds the name, for
    // every task on the dataset.
    const name = unique("held");
    const first = await trigger(task.id, name);
    expect(first.status).toBe(201);
    expectProblem(await trigger(task.id, name), 409, "resource-conflict");
    expectProblem(await trigger(other.id, name), 409, "resource-conflict");
    const done = await until(first.body.id);
    expect(done.status).toBe("COMPLETED");
    // Then the experiment it made does.
    expectProblem(await trigger(other.id, name), 409, "resource-conflict");

    // An experiment made through the API holds its name as well.
    const made = unique("made");
    const [example] = (await asAdmin("GET", `/v2/datasets/${ds.id}/examples`)).examples as Json[];
    await asAdmin("POST", "/v2/experiments", {
      dataset_id: ds.id,
      name: made,
      experiment_runs: [{ example_id: example!.id, output: "o" }],
    });
    expectProblem(await trigger(task.id, made), 409, "resource-conflict");
    // Names are the dataset's: another dataset's task may use them, and a name differing in
    // letter case is another name.
    const elsewhere = await trigger((await taskOn((await dataset()).id)).id, made);
    expect(elsewhere.status).toBe(201);
    const upper = await trigger(task.id, made.toUpperCase());
    expect(upper.status).toBe(201);

    for (const bad of ['say "hi"', "back\\slash"])
      expectProblem(await trigger(task.id, bad), 400, "invalid-request");
    await until(elsewhere.body.id);
    await until(upper.body.id);
  });
});

describe("TEMPLATE_EVALUATION experiments", () => {
  it("each example's columns fill the template; the model's label (and explanation) is the output", async () => {
    const llm = await startFakeLlm();
    try {
      const judge = await asAdmin("POST", "/v2/ai-integrations", {
        name: unique("judge"),
        provider: "OPEN_AI",
        api_key: "sk-judge",
        base_url: llm.baseUrl,
      });
      const dataset = await asAdmin("POST", "/v2/datasets", {
        space_id: spaceId,
        name: unique("judge-ds"),
        examples: [{ answer: { text: "OK fine" } }, { answer: { text: "bad" } }, { other: 1 }],
      });
      const task = await asAdmin("POST", "/v2/tasks", {
        type: "RUN_EXPERIMENT",
        name: unique("judge-task"),
        dataset_id: dataset.id,
        run_configuration: {
          experiment_type: "TEMPLATE_EVALUATION",
          ai_integration_id: judge.id,
          model_name: "gpt-judge",
          template: "Is this relevant? {{response}}",
          provide_explanation: true,
          classification_choices: { relevant: 1, irrelevant: 0 },
          column_mapping: { response: "answer.text" },
        },
      });
      const done = await until(
        (await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, { experiment_name: unique("j") }))
          .id,
      );
      // The third example has no answer.text: its run is an error.
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 2, num_errors: 1 });
      expect(llm.requests.map((r) => r.body.messages.at(-1)!.content).sort()).toEqual([
        "Is this relevant? OK fine",
        "Is this relevant? bad",
      ]);
      const runs = (await asAdmin("GET", `/v2/experiments/${done.experiment_id}/runs?limit=100`))
        .experiment_runs as Json[];
      expect(runs.map((r) => r.output).sort()).toEqual([
        "irrelevant\nthe answer does not fit.",
        "relevant\nthe answer fits.",
      ]);
      // No agent made these outputs.
      const experiment = await asAdmin("GET", `/v2/experiments/${done.experiment_id}`);
      expect(experiment.integration_id).toBeNull();
    } finally {
      await llm.close();
    }
  });
});

describe("TEMPLATE evaluators on AWS Bedrock and Vertex AI", () => {
  it("LLM integrations of /v2/integrations judge through the Converse API and generateContent", async () => {
    const bedrock = await asAdmin("POST", "/v2/integrations", {
      type: "LLM",
      name: unique("bedrock"),
      config: {
        provider: "AWS_BEDROCK",
        auth: { auth_type: "BEARER_TOKEN", api_key: "bedrock-key", base_url: cloud.root },
        model_names: ["anthropic.claude"],
      },
    });
    const vertex = await asAdmin("POST", "/v2/integrations", {
      type: "LLM",
      name: unique("vertex"),
      config: {
        provider: "VERTEX_AI",
        project_id: "customer-project",
        location: "us-central1",
        project_access_label: "granted",
      },
    });
    const judge = async (name: string, integrationId: string, model: string) =>
      relevanceJudge(asAdmin, spaceId, {
        name: unique(name),
        column: name,
        integrationId,
        model,
        explain: false,
      });
    const e = await taskExperiment(asAdmin, spaceId, unique, 4, (i) =>
      i < 2 ? `OK ${i}` : `no ${i}`,
    );
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "TEMPLATE_EVALUATION",
      name: unique("clouds"),
      dataset_id: e.datasetId,
      experiment_ids: [e.experimentId],
      evaluators: [
        { evaluator_id: await judge("bedrock_judge", bedrock.id, "anthropic.claude") },
        { evaluator_id: await judge("vertex_judge", vertex.id, "gemini-pro") },
      ],
    });
    const done = await until((await asAdmin("POST", `/v2/tasks/${task.id}/trigger`, {})).id);
    expect(done).toMatchObject({ status: "COMPLETED", num_successes: 8, num_errors: 0 });
    const toBedrock = cloud.requests.filter((r) => r.url === "/model/anthropic.claude/converse");
    const toVertex = cloud.requests.filter(
      (r) =>
        r.url ===
        "/v1/projects/customer-project/locations/us-central1/publishers/google/models/gemini-pro:generateContent",
    );
    expect([toBedrock.length, toVertex.length]).toEqual([4, 4]);
    for (const r of toBedrock) expect(r.headers.authorization).toBe("Bearer bedrock-key");
    for (const r of toVertex) expect(r.headers.authorization).toBe("Bearer ya29.fake");
    const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
      .experiment_runs as Json[];
    for (const r of runs) {
      const want = String(r.output).startsWith("OK") ? "relevant" : "irrelevant";
      expect([r["eval.bedrock_judge.label"], r["eval.vertex_judge.label"]]).toEqual([want, want]);
    }
  });
});
