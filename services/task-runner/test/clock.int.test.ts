import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as grpc from "@grpc/grpc-js";
import { startService, type RunningService } from "@argus/service-host";
import {
  callUnary,
  createChannel,
  createLogger,
  fixedClock,
  type Principal,
} from "@argus/platform";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";
import { TaskServiceService as T, type TaskRun } from "@argus/proto/tasks/v1/tasks";
import {
  createTestDatabase,
  freePort,
  testCallKeys,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { startDataset } from "../../dataset/src/index.ts";
import {
  startIdentityForOthers,
  type IdentityForOthers,
} from "../../identity/test/identityForOthers.ts";
import { taskRunner } from "../src/index.ts";

// Far from the wall clock, so a write stamped with the system's time would show.
const pinned = new Date("2026-03-04T05:06:07.089Z");
const anHourLater = new Date(pinned.getTime() + 3_600_000).toISOString();
const clock = fixedClock(pinned);

const keys = testCallKeys();
let db: TestDatabase;
let identity: IdentityForOthers;
let dataset: RunningService;
let tasks: RunningService;
let datasetChannel: grpc.Client;
let taskChannel: grpc.Client;
let admin: Principal;

const call = <Req, Res>(
  channel: grpc.Client,
  method: Parameters<typeof callUnary<Req, Res>>[1],
  req: Req,
) => callUnary(channel, method, req, { credential: keys.caller(admin), requestId: "t" });

/**
 * Identity, the dataset service and the task runner (its API, its run worker and its
 * continuous scheduler) in-process, the task runner on a pinned clock. The catalog and the
 * tracing service are not running: a RUN_EXPERIMENT task without a run configuration needs
 * neither to be created, triggered and worked (its run fails for want of an experiment type).
 */
beforeAll(async () => {
  const infra = testInfra();
  db = await createTestDatabase(infra);
  const common = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    ARGUS_EVENTS_STREAM: uniqueName("TK"),
    ARGUS_SUBJECT_ROOT: uniqueName("tk"),
  };
  identity = await startIdentityForOthers(common, keys);
  admin = identity.admin;
  const datasetPort = await freePort();
  dataset = await startDataset(
    {
      ...common,
      DATASET_GRPC_PORT: String(datasetPort),
      DATASET_PROBE_PORT: "0",
      ...keys.env("dataset"),
      IDENTITY_GRPC_URL: identity.url,
    },
    createLogger({ service: "dataset-test", level: "warn" }),
  );
  const nobody = `127.0.0.1:${await freePort()}`;
  const taskPort = await freePort();
  tasks = await startService(
    taskRunner,
    {
      ...common,
      TASK_RUNNER_GRPC_PORT: String(taskPort),
      TASK_RUNNER_PROBE_PORT: "0",
      ...keys.env("task-runner"),
      IDENTITY_GRPC_URL: identity.url,
      DATASET_GRPC_URL: `127.0.0.1:${datasetPort}`,
      CATALOG_GRPC_URL: nobody,
      TRACING_GRPC_URL: nobody,
      ARGUS_TASK_SANDBOX_ISOLATION: "off",
    },
    createLogger({ service: "task-runner-test", level: "warn" }),
    { clock },
  );
  datasetChannel = createChannel(`127.0.0.1:${datasetPort}`);
  taskChannel = createChannel(`127.0.0.1:${taskPort}`);
}, 60_000);

afterAll(async () => {
  datasetChannel?.close();
  taskChannel?.close();
  await tasks?.stop();
  await dataset?.stop();
  await identity?.stop();
  await db?.drop();
});

async function finished(id: string): Promise<TaskRun> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await call(taskChannel, T.getRun, { id });
    if (["COMPLETED", "FAILED", "CANCELLED"].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the task runner's clock", () => {
  it("stamps a task, its run's creation, and the worker's start and end of it", async () => {
    const d = await call(datasetChannel, DatasetServiceService.createDataset, {
      spaceId: identity.spaceId,
      name: uniqueName("ds"),
      examples: [{ id: "", fieldsJson: '{"q":1}' }],
    });
    const task = await call(taskChannel, T.createTask, {
      type: "RUN_EXPERIMENT",
      name: uniqueName("task"),
      projectId: "",
      datasetId: d.dataset!.id,
      evaluators: [],
      experimentIds: [],
    });
    expect([task.createdAt, task.updatedAt]).toEqual([pinned.toISOString(), pinned.toISOString()]);

    clock.advance(3_600_000);
    const triggered = await call(taskChannel, T.triggerRun, {
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
    expect((await call(taskChannel, T.getTask, { id: task.id })).lastRunAt).toBe(anHourLater);
  });
});
