/**
 * Tasks end to end: a dataset, an experiment and a managed CODE evaluator; a CODE_EVALUATION
 * task over the experiment, triggered and polled to COMPLETED; the evaluations visible on the
 * experiment's runs; the spec's rule for data already labeled; cancel from PENDING and
 * mid-RUNNING, and of a finished run (409); the public API's rules at their edges; and a worker
 * killed mid-run, whose run another worker finishes without evaluating any item twice.
 */
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { freePort, listenLocal, spawnProcess } from "@argus/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import { addSpaceUser, identityDb, newUser, uuidOf } from "./identity-fixtures.ts";
import { startFakeLlm } from "./fake-llm.ts";
import {
  exactMatchEvaluator,
  relevanceJudge,
  taskExperiment,
  terminal,
  untilRun,
} from "./tasks-support.ts";
import { recentWindow, sendSpans } from "./spans-support.ts";

let api: Api;
let db: pg.Pool;
let spaceId: string;
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

beforeAll(async () => {
  // Short leases: a killed worker's run is taken over within seconds.
  api = await startApi({
    env: {
      ARGUS_TASK_RUN_LEASE_MS: "1500",
      ARGUS_TASK_ALLOW_LOOPBACK: "true",
      ARGUS_TASK_SANDBOX_TIMEOUT_MS: "1500",
      ARGUS_TASK_CONTINUOUS_INTERVAL_MS: "300",
      ARGUS_TASK_CONTINUOUS_LAG_MS: "0",
    },
  });
  db = new pg.Pool({
    connectionString: api.stack.env.DATABASE_URL,
    options: "-c search_path=tasks",
    max: 2,
  });
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

const experiment = (size: number, output?: (i: number) => string) =>
  taskExperiment(asAdmin, spaceId, unique, size, output);
const exactMatch = () => exactMatchEvaluator(asAdmin, spaceId, unique("exact"));

const codeTask = async (e: { datasetId: string; experimentId: string }, evaluatorId: string) =>
  asAdmin("POST", "/v2/tasks", {
    type: "CODE_EVALUATION",
    name: unique("task"),
    dataset_id: e.datasetId,
    experiment_ids: [e.experimentId],
    evaluators: [{ evaluator_id: evaluatorId }],
  });

/** A MANAGED CONTAINS_ANY_KEYWORD evaluator writing `eval.<column>.*`: "true" when `variable` holds `keyword`. */
const keywordEvaluator = (name: string, column: string, variable: string, keyword: string) =>
  asAdmin("POST", "/v2/evaluators", {
    space_id: spaceId,
    name,
    type: "CODE",
    version: {
      commit_message: "c",
      code_config: {
        type: "MANAGED",
        name: column,
        managed_evaluator: "CONTAINS_ANY_KEYWORD",
        variables: [variable],
        static_params: [{ name: "keywords", type: "STRING_ARRAY", default_value: [keyword] }],
      },
    },
  });

const trigger = (taskId: string, body: Json = {}) =>
  asAdmin("POST", `/v2/tasks/${taskId}/trigger`, body);

const until = (runId: string, ok: (run: Json) => boolean, ms?: number) =>
  untilRun(asAdmin, runId, ok, ms);

describe("a CODE_EVALUATION task over an experiment", () => {
  let e: { datasetId: string; experimentId: string };
  let task: Json;

  it("creates the task, triggers it and polls the run to COMPLETED; the runs show the evaluations", async () => {
    e = await experiment(20);
    task = await codeTask(e, await exactMatch());
    expect(task).toMatchObject({
      type: "CODE_EVALUATION",
      dataset_id: e.datasetId,
      project_id: null,
      experiment_ids: [e.experimentId],
      sampling_rate: null,
      is_continuous: false,
      run_configuration: null,
      last_run_at: null,
    });
    const run = await trigger(task.id);
    expect(run).toMatchObject({ task_id: task.id, status: "PENDING", num_successes: 0 });
    const done = await until(run.id, terminal);
    expect(done).toMatchObject({
      status: "COMPLETED",
      num_successes: 20,
      num_errors: 0,
      num_skipped: 0,
      failure_reason: null,
    });
    expect(Date.parse(done.run_started_at)).toBeLessThanOrEqual(Date.parse(done.run_finished_at));
    const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
      .experiment_runs as Json[];
    const labels = runs.map((r) => r["eval.exact_match.label"]);
    expect(labels.filter((l) => l === "true")).toHaveLength(10);
    expect(labels.filter((l) => l === "false")).toHaveLength(10);
    expect(runs[0]!["eval.exact_match.score"]).toBe(1);
    expect((await asAdmin("GET", `/v2/tasks/${task.id}`)).last_run_at).toEqual(expect.any(String));
  });

  it("everything already labeled and no override: CANCELLED with zero counts and the reason; override evaluates anew", async () => {
    const again = await until((await trigger(task.id)).id, terminal);
    expect(again).toMatchObject({
      status: "CANCELLED",
      num_successes: 0,
      num_errors: 0,
      num_skipped: 0,
    });
    expect(again.failure_reason).toMatch(/override_evaluations/);
    const override = await until(
      (await trigger(task.id, { override_evaluations: true })).id,
      terminal,
    );
    expect(override).toMatchObject({ status: "COMPLETED", num_successes: 20 });
  });

  it("lists the task's runs newest first, by status", async () => {
    const all = await asAdmin("GET", `/v2/tasks/${task.id}/runs`);
    expect(all.task_runs.map((r: Json) => r.status)).toEqual([
      "COMPLETED",
      "CANCELLED",
      "COMPLETED",
    ]);
    const cancelled = await asAdmin("GET", `/v2/tasks/${task.id}/runs?status=CANCELLED`);
    expect(cancelled.task_runs).toHaveLength(1);
    const page = await asAdmin("GET", `/v2/tasks/${task.id}/runs?limit=1`);
    expect(page.pagination.has_more).toBe(true);
  });

  it("cancelling a finished run is 409", async () => {
    const [finished] = (await asAdmin("GET", `/v2/tasks/${task.id}/runs?status=COMPLETED`))
      .task_runs;
    expectProblem(
      await api.req("POST", `/v2/task-runs/${finished.id}/cancel`),
      409,
      "resource-conflict",
    );
  });
});

describe("a member's task list", () => {
  it("holds only the tasks it may read, in full pages, whatever the newest tasks are", async () => {
    const orgId = (await asAdmin("GET", "/v2/organizations")).organizations[0].id as string;
    const space = async () =>
      (
        await asAdmin("POST", "/v2/spaces", {
          organization_id: orgId,
          name: unique("tasks-space"),
          is_private: true,
        })
      ).id as string;
    const [mine, theirs] = [await space(), await space()];
    const idb = identityDb(api);
    try {
      const member = await newUser(api, idb, "MEMBER");
      await addSpaceUser(api, mine, member.id, "MEMBER", orgId);
      const tasksIn = async (spaceId: string, n: number) => {
        const e = await taskExperiment(asAdmin, spaceId, unique, 1);
        const evaluator = await exactMatchEvaluator(asAdmin, spaceId, unique("exact"));
        const ids: string[] = [];
        for (let i = 0; i < n; i++) ids.push((await codeTask(e, evaluator)).id as string);
        return ids;
      };
      const readable = await tasksIn(mine, 3);
      // The newest tasks are in a space the member cannot see.
      const hidden = await tasksIn(theirs, 5);
      const seen: string[][] = [];
      let cursor = "";
      do {
        const res = await api.req(
          "GET",
          `/v2/tasks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          { key: member.key },
        );
        expect(res.status).toBe(200);
        seen.push((res.body.tasks as Json[]).map((t) => t.id as string));
        cursor = res.body.pagination.has_more ? res.body.pagination.next_cursor : "";
      } while (cursor && seen.length < 10);
      // Theirs and the public spaces' tasks (the default space's, made by the tests before).
      const all = seen.flat();
      expect(all).toEqual(expect.arrayContaining(readable));
      expect(all.filter((id) => hidden.includes(id))).toEqual([]);
      // Pages are full until the last: nothing the member may not read takes a place.
      expect(seen.slice(0, -1).every((page) => page.length === 2)).toBe(true);
      expect(seen[0]).toEqual(readable.slice(-2).reverse());
    } finally {
      await idb.end();
    }
  });
});

describe("cancel", () => {
  it("cancels a PENDING run and one mid-RUNNING; the worker stops on it", async () => {
    const big = await experiment(4000);
    const evaluator = await exactMatch();
    // Two runs at once per replica: the third waits, PENDING.
    const tasks = [
      await codeTask(big, evaluator),
      await codeTask(big, evaluator),
      await codeTask(big, evaluator),
    ];
    const runs = [];
    for (const t of tasks) runs.push(await trigger(t.id, { override_evaluations: true }));
    const pending = await api.req("POST", `/v2/task-runs/${runs[2]!.id}/cancel`);
    expect(pending.status, JSON.stringify(pending.body)).toBe(200);
    expect(pending.body).toMatchObject({ status: "CANCELLED", num_successes: 0 });
    const running = await until(runs[0]!.id, (r) => r.status === "RUNNING" || terminal(r));
    expect(running.status).toBe("RUNNING");
    const cancelled = await api.req("POST", `/v2/task-runs/${runs[0]!.id}/cancel`);
    expect(cancelled.body.status).toBe("CANCELLED");
    // The worker stops at its next page: the counts stay where the cancel left them.
    await new Promise((r) => setTimeout(r, 1500));
    const after = await asAdmin("GET", `/v2/task-runs/${runs[0]!.id}`);
    expect(after).toMatchObject({
      status: "CANCELLED",
      num_successes: cancelled.body.num_successes,
    });
    expect(after.num_successes).toBeLessThan(4000);
    expect((await until(runs[1]!.id, terminal)).status).toBe("COMPLETED");
  });
});

describe("the public API's rules", () => {
  it("refuses bad shapes with 400 and places that do not fit with 422", async () => {
    const e = await experiment(2);
    const other = await experiment(1);
    const evaluator = await exactMatch();
    const base = {
      type: "CODE_EVALUATION",
      name: "t",
      dataset_id: e.datasetId,
      experiment_ids: [e.experimentId],
      evaluators: [{ evaluator_id: evaluator }],
    };
    const post = (body: Json) => api.req("POST", "/v2/tasks", { body });
    expect((await post(base)).status).toBe(201);
    expectProblem(await post({ ...base, evaluators: [] }), 400, "invalid-request");
    expectProblem(
      await post({
        ...base,
        evaluators: [{ evaluator_id: evaluator }, { evaluator_id: evaluator }],
      }),
      400,
      "invalid-request",
    );
    expectProblem(await post({ ...base, experiment_ids: [] }), 400, "invalid-request");
    expectProblem(await post({ ...base, sampling_rate: 0.5 }), 400, "invalid-request");
    expectProblem(await post({ ...base, is_continuous: true }), 400, "invalid-request");
    expectProblem(await post({ ...base, name: "" }), 400, "invalid-request");
    expectProblem(
      await post({ ...base, experiment_ids: [other.experimentId] }),
      422,
      "unprocessable-entity",
    );
    expectProblem(
      await post({ ...base, type: "TEMPLATE_EVALUATION" }),
      422,
      "unprocessable-entity",
    );
    expectProblem(await post({ ...base, dataset_id: undefined }), 400, "invalid-request");
    // A filter's syntax is judged when it is written, pointing at the error's position.
    const badFilter = await post({ ...base, query_filter: "output = " });
    expectProblem(badFilter, 400, "invalid-request");
    expect(badFilter.body.detail).toMatch(/^query_filter: filter: .* at position 10/);
    expectProblem(
      await post({ ...base, evaluators: [{ evaluator_id: evaluator, query_filter: "(a = 1" }] }),
      400,
      "invalid-request",
    );
    const created = (await post(base)).body;
    expectProblem(
      await api.req("PATCH", `/v2/tasks/${created.id}`, { body: { query_filter: "a = = 1" } }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", `/v2/tasks/${created.id}/trigger`, { body: { experiment_name: "x" } }),
      400,
      "invalid-request",
    );
    expectProblem(
      await api.req("POST", `/v2/tasks/${created.id}/trigger`, {
        body: { data_start_time: new Date().toISOString() },
      }),
      400,
      "invalid-request",
    );
    const renamed = await api.req("PATCH", `/v2/tasks/${created.id}`, {
      body: { name: "renamed" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name).toBe("renamed");
    expect((await api.req("DELETE", `/v2/tasks/${created.id}`)).status).toBe(204);
    expectProblem(await api.req("GET", `/v2/tasks/${created.id}`), 404, "resource-not-found");
  });
});

describe("a worker killed mid-run", () => {
  it("another worker finishes the run; no item is evaluated twice", async () => {
    const e = await experiment(6000);
    const task = await codeTask(e, await exactMatch());
    const run = await trigger(task.id);
    await until(run.id, (r) => (r.status === "RUNNING" && r.num_successes > 0) || terminal(r));
    await api.stack.processes["task-runner"]!.stop("SIGKILL");
    const { rows } = await db.query<{ status: string }>(
      "select status from task_runs where id = $1",
      [uuidOf(run.id)],
    );
    expect(rows[0]!.status).toBe("RUNNING");
    const before = (
      await db.query<{ n: number }>("select num_successes as n from task_runs where id = $1", [
        uuidOf(run.id),
      ])
    ).rows[0]!.n;
    await api.stack.restart("task-runner");
    // The new worker's progress counts again what the dead one recorded, then adds each page:
    // never below what was reported before the kill, never above the run's size.
    const seen: number[] = [];
    const done = await until(
      run.id,
      (r) => {
        seen.push(r.num_successes);
        return terminal(r);
      },
      120_000,
    );
    expect(done).toMatchObject({ status: "COMPLETED", num_successes: 6000, num_errors: 0 });
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(before);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const items = await db.query<{ n: number; distinct_items: number }>(
      "select count(*)::int as n, count(distinct item_id)::int as distinct_items from task_run_items where run_id = $1",
      [uuidOf(run.id)],
    );
    expect(items.rows[0]).toEqual({ n: 6000, distinct_items: 6000 });
  });
});

describe("a TEMPLATE_EVALUATION task on an OpenAI-compatible provider", () => {
  it("renders the template per run, calls the provider (429 honoured), reads labels; a malformed answer is one error", async () => {
    const llm = await startFakeLlm();
    try {
      const integration = await asAdmin("POST", "/v2/ai-integrations", {
        name: unique("llm"),
        provider: "OPEN_AI",
        api_key: "sk-test-key",
        base_url: llm.baseUrl,
      });
      const evaluator = await asAdmin("POST", "/v2/evaluators", {
        space_id: spaceId,
        name: unique("relevance"),
        type: "TEMPLATE",
        version: {
          commit_message: "c",
          template_config: {
            name: "relevance",
            template: "Question: {input}\nAnswer: {output}\nIs the answer relevant?",
            include_explanations: true,
            use_function_calling_if_available: false,
            classification_choices: { relevant: 1, irrelevant: 0 },
            llm_config: {
              ai_integration_id: integration.id,
              model_name: "gpt-test",
              invocation_parameters: { temperature: 0 },
              provider_parameters: {},
            },
          },
        },
      });
      const e = await experiment(6, (i) => (i < 3 ? `OK ${i}` : `no ${i}`));
      const task = await asAdmin("POST", "/v2/tasks", {
        type: "TEMPLATE_EVALUATION",
        name: unique("judge"),
        dataset_id: e.datasetId,
        experiment_ids: [e.experimentId],
        evaluators: [{ evaluator_id: evaluator.id }],
      });
      // A rate limit first (the client waits the Retry-After and tries again), then one answer
      // without a label among the six.
      llm.script([{ status: 429, retryAfterS: 1 }, { malformed: true }]);
      const started = Date.now();
      const done = await until((await trigger(task.id)).id, terminal);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 5, num_errors: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(llm.requests).toHaveLength(7);
      expect(llm.requests.every((r) => r.headers.authorization === "Bearer sk-test-key")).toBe(
        true,
      );
      expect(llm.requests[0]!.body.model).toBe("gpt-test");
      const prompts = llm.requests.map(
        (r) => r.body.messages.find((m) => m.role === "user")!.content,
      );
      expect(prompts).toContain("Question: q0\nAnswer: OK 0\nIs the answer relevant?");
      const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
        .experiment_runs as Json[];
      const labeled = runs.filter((r) => r["eval.relevance.label"] !== undefined);
      expect(labeled).toHaveLength(5);
      for (const r of labeled) {
        const relevant = String(r.output).startsWith("OK");
        expect(r["eval.relevance.label"]).toBe(relevant ? "relevant" : "irrelevant");
        expect(r["eval.relevance.score"]).toBe(relevant ? 1 : 0);
        expect(r["eval.relevance.explanation"]).toMatch(/the answer/);
      }
    } finally {
      await llm.close();
    }
  });
});

describe("TEMPLATE evaluators on Azure OpenAI and Anthropic", () => {
  it("each provider through its own API and key header; a rate limit is waited out", async () => {
    const llm = await startFakeLlm();
    try {
      const integration = async (provider: string, key: string) =>
        (
          await asAdmin("POST", "/v2/ai-integrations", {
            name: unique(provider.toLowerCase()),
            provider,
            api_key: key,
            base_url: llm.root,
          })
        ).id as string;
      const evaluator = async (name: string, integrationId: string, model: string) =>
        relevanceJudge(asAdmin, spaceId, {
          name: unique(name),
          column: name,
          integrationId,
          model,
        });
      const azure = await evaluator(
        "azure_judge",
        await integration("AZURE_OPEN_AI", "az-key"),
        "gpt-deployment",
      );
      const claude = await evaluator(
        "claude_judge",
        await integration("ANTHROPIC", "ant-key"),
        "claude-test",
      );
      const e = await experiment(4, (i) => (i < 2 ? `OK ${i}` : `no ${i}`));
      const task = await asAdmin("POST", "/v2/tasks", {
        type: "TEMPLATE_EVALUATION",
        name: unique("two-providers"),
        dataset_id: e.datasetId,
        experiment_ids: [e.experimentId],
        evaluators: [{ evaluator_id: azure }, { evaluator_id: claude }],
      });
      llm.script([{ status: 429, retryAfterS: 1 }]);
      const done = await until((await trigger(task.id)).id, terminal);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 8, num_errors: 0 });
      expect(llm.requests).toHaveLength(9);
      const toAzure = llm.requests.filter((r) => r.url.startsWith("/openai/"));
      const toAnthropic = llm.requests.filter((r) => r.url.startsWith("/v1/messages"));
      expect(toAzure.length + toAnthropic.length).toBe(9);
      for (const r of toAzure) {
        expect(r.url).toBe(
          "/openai/deployments/gpt-deployment/chat/completions?api-version=2024-10-21",
        );
        expect(r.headers["api-key"]).toBe("az-key");
        expect(r.headers.authorization).toBeUndefined();
      }
      for (const r of toAnthropic) {
        // The SDK (1.13) sends the key as a bearer token, with its API version.
        expect(r.headers.authorization).toBe("Bearer ant-key");
        expect(r.headers["anthropic-version"]).toEqual(expect.any(String));
        expect(r.body).toMatchObject({ model: "claude-test", max_tokens: 1024 });
        expect(r.body.system).toMatch(
          /Answer with exactly one of these labels: relevant, irrelevant/,
        );
        expect(r.body.messages).toEqual([
          { role: "user", content: expect.stringMatching(/^Answer: /) },
        ]);
      }
      const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
        .experiment_runs as Json[];
      for (const r of runs) {
        const want = String(r.output).startsWith("OK") ? "relevant" : "irrelevant";
        expect([r["eval.azure_judge.label"], r["eval.claude_judge.label"]]).toEqual([want, want]);
      }
    } finally {
      await llm.close();
    }
  });
});

describe("a RUN_EXPERIMENT task (LLM_GENERATION)", () => {
  it("renders each example's messages, calls the model, writes the experiment it made, then runs the chained evaluation task on it", async () => {
    const llm = await startFakeLlm();
    try {
      const integration = await asAdmin("POST", "/v2/ai-integrations", {
        name: unique("gen"),
        provider: "OPEN_AI",
        api_key: "sk-gen",
        base_url: llm.baseUrl,
      });
      const questions = ["OK one", "OK two", "no three", "no four", "no five"];
      const dataset = await asAdmin("POST", "/v2/datasets", {
        space_id: spaceId,
        name: unique("gen-ds"),
        examples: questions.map((q) => ({ question: q })),
      });
      // The chained evaluation task is a dataset task: it needs an experiment to be made on.
      const some = (await asAdmin("GET", `/v2/datasets/${dataset.id}/examples?limit=1`))
        .examples as Json[];
      const first = await asAdmin("POST", "/v2/experiments", {
        name: unique("first"),
        dataset_id: dataset.id,
        experiment_runs: [{ example_id: some[0]!.id, output: "x" }],
      });
      const fits = await keywordEvaluator(unique("fits"), "fits", "output", "fits");
      const evaluation = await codeTask({ datasetId: dataset.id, experimentId: first.id }, fits.id);
      const generation = await asAdmin("POST", "/v2/tasks", {
        type: "RUN_EXPERIMENT",
        name: unique("generate"),
        dataset_id: dataset.id,
        run_configuration: {
          experiment_type: "LLM_GENERATION",
          ai_integration_id: integration.id,
          model_name: "gpt-gen",
          input_variable_format: "F_STRING",
          invocation_parameters: { temperature: 0 },
          messages: [
            { role: "SYSTEM", content: "Be brief." },
            { role: "USER", content: "Answer {question}" },
          ],
        },
      });
      const name = unique("generated");
      const run = await trigger(generation.id, {
        experiment_name: name,
        max_examples: 4,
        evaluation_task_ids: [evaluation.id],
      });
      const done = await until(run.id, terminal);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 4, num_errors: 0 });
      expect(done.experiment_id).toEqual(expect.any(String));
      expect(llm.requests).toHaveLength(4);
      for (const r of llm.requests) {
        expect(r.body.model).toBe("gpt-gen");
        expect(r.body.messages[0]).toEqual({ role: "system", content: "Be brief." });
        expect(r.body.messages[1]!.content).toMatch(/^Answer (OK|no) /);
      }
      const generated = await asAdmin("GET", `/v2/experiments/${done.experiment_id}`);
      expect(generated).toMatchObject({ name, dataset_id: dataset.id });
      const made = (await asAdmin("GET", `/v2/experiments/${done.experiment_id}/runs?limit=100`))
        .experiment_runs as Json[];
      expect(made).toHaveLength(4);
      for (const r of made)
        expect(r.output).toMatch(/^EXPLANATION: the answer (fits|does not fit)/);

      // The chained evaluation task ran on the new experiment.
      const chained = (await asAdmin("GET", `/v2/tasks/${evaluation.id}/runs`)).task_runs as Json[];
      expect(chained).toHaveLength(1);
      const evaluated = await until(chained[0]!.id, terminal);
      expect(evaluated).toMatchObject({ status: "COMPLETED", num_successes: 4 });
      const judged = (await asAdmin("GET", `/v2/experiments/${done.experiment_id}/runs?limit=100`))
        .experiment_runs as Json[];
      const fitting = judged.filter((r) => String(r.output).includes("fits"));
      expect(fitting.every((r) => r["eval.fits.label"] === "true")).toBe(true);
      expect(judged.filter((r) => r["eval.fits.label"] === "false")).toHaveLength(
        4 - fitting.length,
      );

      // The experiment name is taken now: a trigger with it is refused, and no run is made.
      const again = await api.req("POST", `/v2/tasks/${generation.id}/trigger`, {
        body: { experiment_name: name },
      });
      expectProblem(again, 409, "resource-conflict");
      expect(again.body.detail).toMatch(/already exists/);
      expect(
        ((await asAdmin("GET", `/v2/tasks/${generation.id}/runs`)).task_runs as Json[]).length,
      ).toBe(1);
      // A chained task on another dataset is refused at the trigger.
      const other = await experiment(2);
      const elsewhere = await codeTask(other, fits.id);
      const refused = await api.req("POST", `/v2/tasks/${generation.id}/trigger`, {
        body: { experiment_name: unique("x"), evaluation_task_ids: [elsewhere.id] },
      });
      expectProblem(refused, 422, "unprocessable-entity");
    } finally {
      await llm.close();
    }
  });
});

describe("a project task over spans", () => {
  it("evaluates the spans of its window (sampled, at most max_spans); the spans show the evaluations", async () => {
    const sent = await sendSpans(
      { baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey },
      { spaceId, projectName: unique("spans"), traces: 3, spansPerTrace: 2 },
    );
    const evaluator = await keywordEvaluator(unique("child"), "is_child", "text", "child");
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("spans-task"),
      project_id: sent.projectId,
      evaluators: [{ evaluator_id: evaluator.id, column_mappings: { text: "name" } }],
    });
    const window = {
      data_start_time: new Date(Date.now() - 3_600_000).toISOString(),
      data_end_time: new Date(Date.now() + 60_000).toISOString(),
    };
    const all = await until((await trigger(task.id, window)).id, terminal);
    expect(all).toMatchObject({ status: "COMPLETED", num_successes: 6, num_errors: 0 });
    expect(all.data_start_time).toBe(window.data_start_time);
    const listed = await asAdmin("POST", "/v2/spans?limit=100", {
      project_id: sent.projectId,
      ...recentWindow(),
    });
    const byName = Object.fromEntries(
      (listed.spans as Json[]).map((sp) => [
        sp.name,
        (sp.evaluations as Json[]).find((e) => e.name === "is_child"),
      ]),
    );
    expect(byName["child-0-1"]).toMatchObject({ label: "true", score: 1 });
    expect(byName["root-0"]).toMatchObject({ label: "false", score: 0 });
    // At most max_spans, anew.
    const capped = await until(
      (await trigger(task.id, { ...window, max_spans: 2, override_evaluations: true })).id,
      terminal,
    );
    expect(capped).toMatchObject({ status: "COMPLETED", num_successes: 2 });
    // A sampling rate of 0 takes none.
    await asAdmin("PATCH", `/v2/tasks/${task.id}`, { sampling_rate: 0 });
    const none = await until(
      (await trigger(task.id, { ...window, override_evaluations: true })).id,
      terminal,
    );
    expect(none).toMatchObject({ status: "COMPLETED", num_successes: 0, num_skipped: 0 });

    // Two evaluators, each with a filter of its own: each sees only its spans.
    const second = await keywordEvaluator(unique("root"), "is_root", "text", "root");
    const both = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("two-filters"),
      project_id: sent.projectId,
      evaluators: [
        {
          evaluator_id: evaluator.id,
          column_mappings: { text: "name" },
          query_filter: "name = 'child-0-1'",
        },
        {
          evaluator_id: second.id,
          column_mappings: { text: "name" },
          query_filter: "name = 'root-1' or name = 'root-2'",
        },
      ],
    });
    const split = await until(
      (await trigger(both.id, { ...window, override_evaluations: true })).id,
      terminal,
    );
    expect(split).toMatchObject({ status: "COMPLETED", num_successes: 3, num_errors: 0 });
    const items = await db.query<{ evaluator_id: string; n: number }>(
      `select evaluator_id::text, count(*)::int as n from task_run_items where run_id = $1
        group by evaluator_id`,
      [uuidOf(split.id)],
    );
    expect(Object.fromEntries(items.rows.map((r) => [r.evaluator_id, r.n]))).toEqual({
      [uuidOf(evaluator.id)]: 1,
      [uuidOf(second.id)]: 2,
    });
  });
});

describe("a RUN_EXPERIMENT worker killed mid-run", () => {
  it("another worker finishes the generation; each example has exactly one run", async () => {
    const llm = await startFakeLlm();
    try {
      const integration = await asAdmin("POST", "/v2/ai-integrations", {
        name: unique("slow-gen"),
        provider: "OPEN_AI",
        api_key: "sk-gen",
        base_url: llm.baseUrl,
      });
      const size = 600;
      const dataset = await asAdmin("POST", "/v2/datasets", {
        space_id: spaceId,
        name: unique("kill-gen"),
        examples: Array.from({ length: size }, (_, i) => ({ question: `OK ${i}` })),
      });
      const generation = await asAdmin("POST", "/v2/tasks", {
        type: "RUN_EXPERIMENT",
        name: unique("kill-gen"),
        dataset_id: dataset.id,
        run_configuration: {
          experiment_type: "LLM_GENERATION",
          ai_integration_id: integration.id,
          model_name: "gpt-slow",
          input_variable_format: "F_STRING",
          messages: [{ role: "USER", content: "Answer {question}" }],
        },
      });
      // Slow answers, so the worker is killed between its pages.
      llm.script(Array.from({ length: 3 * size }, () => ({ delayMs: 10 })));
      const run = await trigger(generation.id, { experiment_name: unique("kill-gen") });
      await until(run.id, (r) => (r.status === "RUNNING" && r.num_successes > 0) || terminal(r));
      await api.stack.processes["task-runner"]!.stop("SIGKILL");
      const { rows } = await db.query<{ status: string; num_successes: number }>(
        "select status, num_successes from task_runs where id = $1",
        [uuidOf(run.id)],
      );
      expect(rows[0]!.status).toBe("RUNNING");
      expect(rows[0]!.num_successes).toBeLessThan(size);
      await api.stack.restart("task-runner");
      const done = await until(run.id, terminal, 120_000);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: size, num_errors: 0 });
      const outputs: Json[] = [];
      let cursor = "";
      do {
        const page = await asAdmin(
          "GET",
          `/v2/experiments/${done.experiment_id}/runs?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
        );
        outputs.push(...(page.experiment_runs as Json[]));
        cursor = page.pagination.has_more ? page.pagination.next_cursor : "";
      } while (cursor);
      expect(outputs).toHaveLength(size);
      expect(new Set(outputs.map((r) => r.example_id)).size).toBe(size);
    } finally {
      await llm.close();
    }
  });
});

describe("a continuous task", () => {
  it("evaluates new spans as they arrive, without a trigger, each span once", async () => {
    const target = { baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey };
    const projectName = unique("online");
    // Spans from before the task was continuous are not its to evaluate.
    const before = await sendSpans(target, { spaceId, projectName, traces: 2, spansPerTrace: 2 });
    const evaluator = await keywordEvaluator(
      unique("online-child"),
      "online_child",
      "text",
      "child",
    );
    const task = await asAdmin("POST", "/v2/tasks", {
      type: "CODE_EVALUATION",
      name: unique("online-task"),
      project_id: before.projectId,
      is_continuous: true,
      sampling_rate: 1,
      evaluators: [{ evaluator_id: evaluator.id, column_mappings: { text: "name" } }],
    });
    // The scheduler has taken the task on once its window exists.
    for (let i = 0; ; i++) {
      const { rowCount } = await db.query("select 1 from continuous_windows where task_id = $1", [
        uuidOf(task.id),
      ]);
      if (rowCount === 1) break;
      if (i > 100) throw new Error("the continuous task was never scheduled");
      await new Promise((r) => setTimeout(r, 100));
    }
    const runsOf = async () =>
      ((await asAdmin("GET", `/v2/tasks/${task.id}/runs`)).task_runs as Json[]).filter(terminal);
    const evaluatedBy = async (count: number) => {
      for (let i = 0; i < 150; i++) {
        const runs = await runsOf();
        const total = runs.reduce((n, r) => n + (r.num_successes as number), 0);
        if (total >= count) return { runs, total };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`fewer than ${count} spans evaluated: ${JSON.stringify(await runsOf())}`);
    };
    await sendSpans(target, {
      spaceId,
      projectName,
      traces: 3,
      spansPerTrace: 2,
      start: new Date(),
    });
    const first = await evaluatedBy(6);
    expect(first.total).toBe(6);
    expect(first.runs.every((r) => r.status === "COMPLETED" && r.num_errors === 0)).toBe(true);
    await sendSpans(target, {
      spaceId,
      projectName,
      traces: 1,
      spansPerTrace: 3,
      start: new Date(),
    });
    const second = await evaluatedBy(9);
    expect(second.total).toBe(9);
    // Each span once, and none from before: 9 distinct evaluated spans over every run.
    const items = await db.query<{ n: number; distinct: number }>(
      `select count(*)::int as n, count(distinct item_id)::int as distinct from task_run_items
        where run_id = any($1) and ok`,
      [second.runs.map((r) => uuidOf(r.id))],
    );
    expect(items.rows[0]).toEqual({ n: 9, distinct: 9 });
    const old = new Set(before.spanIds);
    const evaluated = await db.query<{ item_id: string }>(
      "select item_id from task_run_items where run_id = any($1)",
      [second.runs.map((r) => uuidOf(r.id))],
    );
    expect(evaluated.rows.filter((r) => old.has(r.item_id))).toEqual([]);
    // No longer continuous: no more runs.
    await asAdmin("PATCH", `/v2/tasks/${task.id}`, { is_continuous: false });
    const count = (await runsOf()).length;
    await sendSpans(target, {
      spaceId,
      projectName,
      traces: 1,
      spansPerTrace: 1,
      start: new Date(),
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await asAdmin("GET", `/v2/tasks/${task.id}/runs`)).task_runs).toHaveLength(count);
  });
});

describe("a CUSTOM code evaluator (user Python)", () => {
  it("runs sandboxed: a loop, an unbounded allocation and a socket are stopped and counted as errors; the worker survives", async () => {
    // A loopback server the evaluator tries to reach: any connection it sees is a breach.
    let reached = 0;
    const canary = createServer((s) => {
      reached++;
      s.destroy();
    });
    const port = await listenLocal(canary);
    try {
      const breaches = ["loop", "alloc", "socket"];
      const e = await experiment(12, (i) => breaches[i] ?? (i % 2 === 0 ? `a${i}` : "wrong"));
      const code = `
import socket
from arize.experiments.evaluators.base import CodeEvaluator, EvaluationResult

class Judge(CodeEvaluator):
    def evaluate(self, *, output, expected, **kwargs):
        if output == "loop":
            while True:
                pass
        if output == "alloc":
            hog = []
            while True:
                hog.append(bytearray(1 << 24))
        if output == "socket":
            socket.create_connection(("127.0.0.1", ${port}), timeout=1).close()
        ok = output == expected
        return EvaluationResult(label=self.labels[int(ok)], score=float(ok), explanation="compared")
`;
      const evaluator = await asAdmin("POST", "/v2/evaluators", {
        space_id: spaceId,
        name: unique("custom"),
        type: "CODE",
        version: {
          commit_message: "c",
          code_config: {
            type: "CUSTOM",
            name: "judge",
            code,
            variables: ["output", "expected"],
            static_params: [
              { name: "labels", type: "STRING_ARRAY", default_value: ["miss", "match"] },
            ],
          },
        },
      });
      const task = await codeTask(e, evaluator.id as string);
      const done = await until((await trigger(task.id)).id, terminal);
      expect(done).toMatchObject({ status: "COMPLETED", num_successes: 9, num_errors: 3 });
      expect(reached).toBe(0);
      const runs = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
        .experiment_runs as Json[];
      const labels = runs.map((r) => r["eval.judge.label"]).filter((l) => l !== undefined);
      expect(labels.sort()).toEqual([...Array(4).fill("match"), ...Array(5).fill("miss")]);
      // The worker is the same process, and runs the next task.
      const worker = api.stack.processes["task-runner"]!;
      expect(() => process.kill(worker.pid, 0)).not.toThrow();
      const next = await codeTask(await experiment(3), await exactMatch());
      expect(await until((await trigger(next.id)).id, terminal)).toMatchObject({
        status: "COMPLETED",
        num_successes: 3,
      });
    } finally {
      canary.close();
    }
  }, 120_000);
});

describe("two worker replicas", () => {
  it("50 runs, each executed exactly once", async () => {
    // A second task-runner process beside the stack's: its own ports, the same identity.
    const port = async () => String(await freePort());
    const second = await spawnProcess({
      name: "task-runner-2",
      command: process.execPath,
      args: ["services/task-runner/src/main.ts"],
      cwd: fileURLToPath(new URL("../", import.meta.url)),
      env: {
        ...api.stack.env,
        ...api.stack.processEnv["task-runner"],
        TASK_RUNNER_GRPC_PORT: await port(),
        TASK_RUNNER_PROBE_PORT: await port(),
        ARGUS_TASK_RUNS_PER_REPLICA: "4",
      },
      readyWhen: async () => true,
      timeoutMs: 30_000,
    });
    try {
      const e = await experiment(5);
      const evaluator = await exactMatch();
      const task = await codeTask(e, evaluator);
      const runs: string[] = [];
      for (let i = 0; i < 50; i++)
        runs.push((await trigger(task.id, { override_evaluations: true })).id);
      for (const id of runs) {
        const done = await until(id, terminal);
        expect(done).toMatchObject({ status: "COMPLETED", num_successes: 5 });
      }
      const { rows } = await db.query<{ stream_id: string; started: number; finished: number }>(
        `select stream_id,
                count(*) filter (where event_type = 'TaskRunStarted')::int as started,
                count(*) filter (where event_type = 'TaskRunFinished')::int as finished
           from events where stream_id = any($1) group by stream_id`,
        [runs.map((r) => `task_run-${uuidOf(r)}`)],
      );
      expect(rows).toHaveLength(50);
      expect(rows.every((r) => r.started === 1 && r.finished === 1)).toBe(true);
      const items = await db.query<{ n: number }>(
        "select count(*)::int as n from task_run_items where run_id = any($1)",
        [runs.map(uuidOf)],
      );
      expect(items.rows[0]!.n).toBe(250);
      expect(second.output()).not.toMatch(/"level":"error"/);
    } finally {
      await second.stop();
    }
  }, 180_000);
});
