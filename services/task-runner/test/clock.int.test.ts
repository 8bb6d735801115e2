import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as grpc from "@grpc/grpc-js";
import { startService, type RunningService } from "@argus/service-host";
import { callUnary, createChannel, createLogger, fixedClock } from "@argus/platform";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";
import { TaskServiceService as T, type TaskRun } from "@argus/proto/tasks/v1/tasks";
import { freePort, uniqueName } from "@argus/testkit";
import {
  startDatasetUnderTest,
  type DatasetUnderTest,
} from "../../dataset/test/datasetUnderTest.ts";
import { taskRunner } from "../src/index.ts";

// Far from the wall clock, so a write stamped with the system's time would show.
const pinned = new Date("2026-03-04T05:06:07.089Z");
const anHourLater = new Date(pinned.getTime() + 3_600_000).toISOString();
const clock = fixedClock(pinned);

let ds: DatasetUnderTest;
let tasks: RunningService;
let taskChannel: grpc.Client;

const call = <Req, Res>(method: Parameters<typeof callUnary<Req, Res>>[1], req: Req) =>
  callUnary(taskChannel, method, req, { credential: ds.keys.caller(ds.admin), requestId: "t" });

/**
 * Identity, the dataset service and the task runner (its API, its run worker and its
 * continuous scheduler) in-process, the task runner on a pinned clock. The catalog and the
 * tracing service are not running: a RUN_EXPERIMENT task without a run configuration needs
 * neither to be created, triggered and worked (its run fails for want of an experiment type).
 */
beforeAll(async () => {
  ds = await startDatasetUnderTest();
  const nobody = `127.0.0.1:${await freePort()}`;
  const taskPort = await freePort();
  tasks = await startService(
    taskRunner,
    {
      ...ds.env,
      TASK_RUNNER_GRPC_PORT: String(taskPort),
      TASK_RUNNER_PROBE_PORT: "0",
      ...ds.keys.env("task-runner"),
      IDENTITY_GRPC_URL: ds.identityUrl,
      DATASET_GRPC_URL: ds.datasetUrl,
      CATALOG_GRPC_URL: nobody,
      TRACING_GRPC_URL: nobody,
      ARGUS_TASK_SANDBOX_ISOLATION: "off",
    },
    createLogger({ service: "task-runner-test", level: "warn" }),
    { clock },
  );
  taskChannel = createChannel(`127.0.0.1:${taskPort}`);
}, 60_000);

afterAll(async () => {
  taskChannel?.close();
  await tasks?.stop();
  await ds?.stop();
});

async function finished(id: string): Promise<TaskRun> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await call(T.getRun, { id });
    if (["COMPLETED", "FAILED", "CANCELLED"].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the task runner's clock", () => {
  it("stamps a task, its run's creation, and the worker's start and end of it", async () => {
    const d = await ds.call(DatasetServiceService.createDataset, {
      spaceId: ds.spaceId,
      name: uniqueName("ds"),
      examples: [{ id: "", fieldsJson: '{"q":1}' }],
    });
    const task = await call(T.createTask, {
      type: "RUN_EXPERIMENT",
      name: uniqueName("task"),
      projectId: "",
      datasetId: d.dataset!.id,
      evaluators: [],
      experimentIds: [],
    });
    expect([task.createdAt, task.updatedAt]).toEqual([pinned.toISOString(), pinned.toISOString()]);

    clock.advance(3_600_000);
    const triggered = await call(T.triggerRun, {
      taskId: task.id,
      fields: ["experiment_name"],
      dataStartTime: "",
      dataEndTime: "",
      maxSpans: 0,
      overrideEvaluations: false,
      experimentIds: [],
      experimentName: uniqueName("exp"),
      datasetVersionId: "",
      exampleIds: [],
      maxExamples: 0,
      tracingMetadata: {},
      evaluationTaskIds: [],
    });
    expect(triggered.createdAt).toBe(anHourLater);
    const run = await finished(triggered.id);
    expect(run).toMatchObject({
      status: "FAILED",
      runStartedAt: anHourLater,
      runFinishedAt: anHourLater,
    });
    expect(run.failureReason).toMatch(/not executed/);
    expect((await call(T.getTask, { id: task.id })).lastRunAt).toBe(anHourLater);
  });
});
