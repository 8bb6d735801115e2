/**
 * Outbound work stops when it is stopped (issue 29 item 5): once a run's cancel returns, or
 * its task, its evaluator or the integration that evaluator calls is deleted, the provider and
 * endpoint calls it has out are aborted within a second and none starts after. The provider is a real HTTP server on loopback that holds every
 * request and never answers (the edge Argus does not own): it sees each connection close.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenLocal } from "@argus/testkit";
import { startApi, type Api, type Json } from "./support.ts";
import { relevanceJudge, taskExperiment, untilRun } from "./tasks-support.ts";

/** One request the slow provider holds: when it arrived, and when its connection closed. */
interface Held {
  path: string;
  arrivedAt: number;
  closedAt?: number;
}

/**
 * The promise is a second; the bound leaves room for a loaded 2-core machine (the watcher looks
 * every 250 ms, then the socket is torn down and the close crosses loopback).
 */
const BOUND_MS = 1500;
/** How long the provider is watched, after everything closed, for a call that starts anew. */
const QUIET_MS = 1500;

let api: Api;
let spaceId: string;
let server: Server;
let root: string;
const held: Held[] = [];
let n = 0;
const unique = (p: string) => `${p}-${++n}-${Date.now()}`;

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

beforeAll(async () => {
  server = createServer((req, res) => {
    const h: Held = { path: req.url ?? "", arrivedAt: performance.now() };
    held.push(h);
    req.resume();
    // Never answered: 'close' is the caller tearing the connection down.
    res.on("close", () => (h.closedAt = performance.now()));
  });
  root = `http://127.0.0.1:${await listenLocal(server)}`;
  api = await startApi({
    env: {
      ARGUS_TASK_ALLOW_LOOPBACK: "true",
      ARGUS_INTEGRATION_ALLOW_LOOPBACK: "true",
      // Longer than the test: only a cancel can end a held call.
      ARGUS_TASK_PROVIDER_TIMEOUT_MS: "120000",
    },
  });
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
}, 120_000);
afterAll(async () => {
  await api?.stop();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

const calls = (tag: string) => held.filter((h) => h.path.startsWith(`/${tag}/`));

/** An EVALUATOR or AGENT integration whose endpoint is the slow provider's `/<tag>/…`. */
const endpoint = (type: "EVALUATOR" | "AGENT", tag: string, field: string) =>
  asAdmin("POST", "/v2/integrations", {
    type,
    name: unique(`slow-${type.toLowerCase()}`),
    config: {
      endpoint: `${root}/${tag}/${type.toLowerCase()}`,
      input_schema: {
        type: "object",
        properties: { [field]: { type: "string" } },
        required: [field],
      },
    },
  });

/**
 * A task over 40 dataset items whose calls go to the slow provider under `/<tag>/`: a TEMPLATE
 * evaluator's model (an OpenAI-compatible AI integration), a REMOTE evaluator's endpoint, or an
 * AGENT_CALL experiment's agent. Triggered, and answered once its calls are out.
 */
async function slowTask(tag: string, kind: "TEMPLATE" | "REMOTE" | "AGENT") {
  const e = await taskExperiment(asAdmin, spaceId, unique, 40);
  let evaluatorId = "";
  let integration: Json;
  let task: Json;
  if (kind === "AGENT") {
    integration = await endpoint("AGENT", tag, "question");
    task = await asAdmin("POST", "/v2/tasks", {
      type: "RUN_EXPERIMENT",
      name: unique("slow-agent-task"),
      dataset_id: e.datasetId,
      run_configuration: {
        experiment_type: "AGENT_CALL",
        integration_id: integration.id,
        input_template: { question: "{{input}}" },
      },
    });
  } else {
    if (kind === "TEMPLATE") {
      integration = await asAdmin("POST", "/v2/ai-integrations", {
        name: unique("slow-llm"),
        provider: "OPEN_AI",
        api_key: "sk-slow",
        base_url: `${root}/${tag}/v1`,
      });
      evaluatorId = await relevanceJudge(asAdmin, spaceId, {
        name: unique("judge"),
        column: "judge",
        integrationId: integration.id as string,
        model: "gpt-slow",
      });
    } else {
      integration = await endpoint("EVALUATOR", tag, "output");
      evaluatorId = (
        await asAdmin("POST", "/v2/evaluators", {
          space_id: spaceId,
          name: unique("remote"),
          type: "REMOTE",
          version: { commit_message: "v1", remote_config: { integration_id: integration.id } },
        })
      ).id as string;
    }
    task = await asAdmin("POST", "/v2/tasks", {
      type: kind === "TEMPLATE" ? "TEMPLATE_EVALUATION" : "CODE_EVALUATION",
      name: unique("slow-task"),
      dataset_id: e.datasetId,
      experiment_ids: [e.experimentId],
      evaluators: [{ evaluator_id: evaluatorId }],
    });
  }
  const run = await asAdmin(
    "POST",
    `/v2/tasks/${task.id}/trigger`,
    kind === "AGENT" ? { experiment_name: unique("slow-exp") } : {},
  );
  // The run is out on the provider: every call it may make to one integration at once is held.
  await expect.poll(() => calls(tag).length, { timeout: 60_000, interval: 50 }).toBe(4);
  return { task, run, evaluatorId, integration };
}

/**
 * After `stop` returns: every held call's connection closes within the bound, and no call
 * arrives in the quiet time after. Answers the slowest close, in ms after `stop` returned.
 */
async function expectStopped(tag: string, stop: () => Promise<unknown>): Promise<number> {
  await stop();
  const returnedAt = performance.now();
  const out = calls(tag);
  await expect
    .poll(() => out.every((h) => h.closedAt !== undefined), { timeout: 10_000, interval: 20 })
    .toBe(true);
  const slowest = Math.max(...out.map((h) => h.closedAt! - returnedAt));
  await new Promise((r) => setTimeout(r, QUIET_MS));
  expect(calls(tag)).toHaveLength(out.length);
  expect(slowest).toBeLessThanOrEqual(BOUND_MS);
  console.log(`${tag}: ${out.length} calls out, the last closed ${Math.round(slowest)} ms after`);
  return slowest;
}

describe("a stopped run's calls out", () => {
  it("a cancel aborts the model calls in flight and starts none after", async () => {
    const tag = unique("cancel-llm");
    const { run } = await slowTask(tag, "TEMPLATE");
    await expectStopped(tag, async () => {
      const cancelled = await asAdmin("POST", `/v2/task-runs/${run.id}/cancel`);
      expect(cancelled.status).toBe("CANCELLED");
    });
    // The calls cut short are no item's error: the run stays as the cancel left it.
    expect(await asAdmin("GET", `/v2/task-runs/${run.id}`)).toMatchObject({
      status: "CANCELLED",
      num_successes: 0,
      num_errors: 0,
    });
  });

  it("a cancel aborts a REMOTE evaluator's endpoint calls in flight and starts none after", async () => {
    const tag = unique("cancel-remote");
    const { run } = await slowTask(tag, "REMOTE");
    await expectStopped(tag, () => asAdmin("POST", `/v2/task-runs/${run.id}/cancel`));
    expect((await untilRun(asAdmin, run.id)).status).toBe("CANCELLED");
  });

  it("deleting the task mid-run aborts its calls in flight and starts none after", async () => {
    const tag = unique("delete-task");
    const { task, run } = await slowTask(tag, "TEMPLATE");
    await expectStopped(tag, async () => {
      expect((await api.req("DELETE", `/v2/tasks/${task.id}`)).status).toBe(204);
    });
    expect((await api.req("GET", `/v2/task-runs/${run.id}`)).status).toBe(404);
  });

  it("deleting the evaluator mid-run aborts its calls, starts none after, and ends the run", async () => {
    const tag = unique("delete-evaluator");
    const { run, evaluatorId } = await slowTask(tag, "TEMPLATE");
    await expectStopped(tag, async () => {
      expect((await api.req("DELETE", `/v2/evaluators/${evaluatorId}`)).status).toBe(204);
    });
    const ended = await untilRun(asAdmin, run.id);
    // As a run whose evaluator is gone before it starts: FAILED, with the reason.
    expect(ended).toMatchObject({ status: "FAILED", num_successes: 0, num_errors: 0 });
    expect(ended.failure_reason).toMatch(/^the run's evaluator .+ was deleted$/);
  });

  it("deleting the AI integration mid-run aborts its calls, starts none after, and ends the run", async () => {
    const tag = unique("delete-ai-integration");
    const { run, integration } = await slowTask(tag, "TEMPLATE");
    await expectStopped(tag, async () => {
      expect((await api.req("DELETE", `/v2/ai-integrations/${integration.id}`)).status).toBe(204);
    });
    const ended = await untilRun(asAdmin, run.id);
    expect(ended).toMatchObject({
      status: "FAILED",
      failure_reason: `the run's AI integration ${integration.id} was deleted`,
    });
  });

  it("deleting an AGENT_CALL experiment's agent mid-run aborts its calls and ends the run", async () => {
    // (An EVALUATOR integration cannot be deleted while a REMOTE evaluator uses it: 409.)
    const tag = unique("delete-agent");
    const { run, integration } = await slowTask(tag, "AGENT");
    await expectStopped(tag, async () => {
      expect((await api.req("DELETE", `/v2/integrations/${integration.id}`)).status).toBe(204);
    });
    const ended = await untilRun(asAdmin, run.id);
    expect(ended).toMatchObject({
      status: "FAILED",
      failure_reason: `the run's integration ${integration.id} was deleted`,
    });
  });
});
