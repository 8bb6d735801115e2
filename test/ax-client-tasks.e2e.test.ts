import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cancelTaskRun,
  createClient,
  createEvaluationTask,
  deleteTask,
  getTask,
  getTaskRun,
  listTaskRuns,
  listTasks,
  triggerTaskRun,
  updateTask,
  waitForTaskRun,
} from "@arizeai/ax-client";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";
import {
  unrunnableTemplateEvaluator,
  exactMatchEvaluator,
  taskExperiment,
} from "./tasks-support.ts";

// The tasks functions of @arizeai/ax-client 1.28.0 against the whole stack: a CODE_EVALUATION
// task over an experiment's runs (a managed EXACT_MATCH code evaluator), made with
// createEvaluationTask, read, listed, renamed, triggered with triggerTaskRun and polled with
// waitForTaskRun until COMPLETED; its runs listed and read; a second trigger without override
// ends CANCELLED; cancelling a finished run is refused; deleteTask. The dataset, the experiment
// and the evaluator are made over REST, as in test/tasks.e2e.test.ts.

let api: Api;
let spaceId: string;
let spaceName: string;
let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${++n}`;
const ax = () => createClient({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey });

const asAdmin = (method: string, path: string, body?: unknown) => api.ok(method, path, body);

beforeAll(async () => {
  process.env.DISABLE_PRERELEASE_WARNING = "true";
  api = await startApi();
  const spaces = await api.req("GET", "/v2/spaces");
  spaceId = spaces.body.spaces[0].id;
  spaceName = spaces.body.spaces[0].name;
}, 180_000);
afterAll(() => api?.stop());

const experiment = (size: number) => taskExperiment(asAdmin, spaceId, unique, size);
const exactMatch = () => exactMatchEvaluator(asAdmin, spaceId, unique("exact"));

describe("tasks through @arizeai/ax-client", () => {
  it("createEvaluationTask, triggerTaskRun and waitForTaskRun to COMPLETED; runs listed and read; the evaluations on the runs", async () => {
    const client = ax();
    const size = 10;
    const e = await experiment(size);
    const evaluatorId = await exactMatch();
    const name = unique("task");
    const task = await createEvaluationTask({
      client,
      name,
      type: "CODE_EVALUATION",
      dataset: e.datasetId,
      experimentIds: [e.experimentId],
      evaluators: [{ evaluatorId }],
    });
    expect(task).toMatchObject({
      name,
      type: "CODE_EVALUATION",
      projectId: null,
      datasetId: e.datasetId,
      isContinuous: false,
      samplingRate: null,
      experimentIds: [e.experimentId],
      runConfiguration: null,
      lastRunAt: null,
    });
    expect(task.evaluators).toEqual([
      expect.objectContaining({ evaluatorId, evaluatorVersionId: null }),
    ]);
    expect(task.createdAt).toBeInstanceOf(Date);

    expect((await getTask({ client, task: task.id })).name).toBe(name);
    expect((await getTask({ client, task: name, space: spaceName })).id).toBe(task.id);
    const byDataset = await listTasks({ client, dataset: e.datasetId });
    expect(byDataset.data.map((t) => t.id)).toEqual([task.id]);
    const inSpace = await listTasks({ client, space: spaceId, name, type: "CODE_EVALUATION" });
    expect(inSpace.data.map((t) => t.id)).toEqual([task.id]);

    const renamed = unique("task-renamed");
    const updated = await updateTask({ client, task: name, space: spaceId, name: renamed });
    expect(updated).toMatchObject({ id: task.id, name: renamed, experimentIds: [e.experimentId] });

    const run = await triggerTaskRun({ client, task: renamed, space: spaceName });
    expect(run).toMatchObject({ taskId: task.id, status: "PENDING", experimentId: null });
    const done = await waitForTaskRun({
      client,
      runId: run.id,
      pollInterval: 100,
      timeout: 60_000,
    });
    expect(done).toMatchObject({
      id: run.id,
      taskId: task.id,
      status: "COMPLETED",
      numSuccesses: size,
      numErrors: 0,
      numSkipped: 0,
    });
    expect(done.runStartedAt!.getTime()).toBeLessThanOrEqual(done.runFinishedAt!.getTime());

    const runs = await listTaskRuns({ client, task: task.id });
    expect(runs.data.map((r) => [r.id, r.status])).toEqual([[run.id, "COMPLETED"]]);
    const completed = await listTaskRuns({
      client,
      task: renamed,
      space: spaceId,
      status: "COMPLETED",
    });
    expect(completed.data.map((r) => r.id)).toEqual([run.id]);
    expect(await getTaskRun({ client, runId: run.id })).toEqual(done);
    expect((await getTask({ client, task: task.id })).lastRunAt).toBeInstanceOf(Date);

    const evaluated = (await asAdmin("GET", `/v2/experiments/${e.experimentId}/runs?limit=100`))
      .experiment_runs as Json[];
    const labels = evaluated.map((r) => r["eval.exact_match.label"]);
    expect(labels.filter((l) => l === "true")).toHaveLength(size / 2);
    expect(labels.filter((l) => l === "false")).toHaveLength(size / 2);

    // Everything is labeled: a trigger without override cancels itself, with the reason (which
    // the client's TaskRun does not carry: read over REST).
    const again = await triggerTaskRun({ client, task: task.id });
    const cancelled = await waitForTaskRun({ client, runId: again.id, pollInterval: 100 });
    expect(cancelled).toMatchObject({
      status: "CANCELLED",
      numSuccesses: 0,
      numErrors: 0,
      numSkipped: 0,
    });
    expect((await asAdmin("GET", `/v2/task-runs/${again.id}`)).failure_reason).toMatch(
      /override_evaluations/,
    );
    const overridden = await waitForTaskRun({
      client,
      runId: (await triggerTaskRun({ client, task: task.id, overrideEvaluations: true })).id,
      pollInterval: 100,
    });
    expect(overridden).toMatchObject({ status: "COMPLETED", numSuccesses: size });
    expect((await listTaskRuns({ client, task: task.id, limit: 1 })).pagination.hasMore).toBe(true);

    // A finished run cannot be cancelled (409): the client throws, and the run stays as it was.
    await expect(cancelTaskRun({ client, runId: run.id })).rejects.toThrow();
    expectProblem(
      await api.req("POST", `/v2/task-runs/${run.id}/cancel`),
      409,
      "resource-conflict",
    );
    expect((await getTaskRun({ client, runId: run.id })).status).toBe("COMPLETED");

    await deleteTask({ client, task: renamed, space: spaceName });
    await expect(getTask({ client, task: task.id })).rejects.toThrow();
    expect((await listTasks({ client, dataset: e.datasetId })).data).toEqual([]);
  }, 120_000);

  it("an evaluator no run can call (a Bedrock proxy without its address): the run ends FAILED, which waitForTaskRun returns", async () => {
    const client = ax();
    const project = await asAdmin("POST", "/v2/projects", {
      space_id: spaceId,
      name: unique("proj"),
    });
    const task = await createEvaluationTask({
      client,
      name: unique("project-task"),
      type: "TEMPLATE_EVALUATION",
      project: project.id,
      evaluators: [
        { evaluatorId: await unrunnableTemplateEvaluator(asAdmin, spaceId, unique("bedrock")) },
      ],
    });
    expect(task).toMatchObject({ projectId: project.id, datasetId: null });
    const run = await triggerTaskRun({
      client,
      task: task.id,
      dataStartTime: new Date(Date.now() - 3_600_000),
    });
    const done = await waitForTaskRun({ client, runId: run.id, pollInterval: 100 });
    expect(done.status).toBe("FAILED");
    const reason = (await asAdmin("GET", `/v2/task-runs/${run.id}`)).failure_reason as string;
    // The integration by its public id: no internal uuid in what the API answers.
    expect(reason).toMatch(/AI integration [A-Za-z0-9+/]+=* \(AWS_BEDROCK proxy\) has no base_url/);
    expect(reason).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);
  }, 60_000);
});
