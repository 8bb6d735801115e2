import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { bindService, int, oneOf, str, type ServiceBinding } from "@argus/platform";
import { TaskServiceService } from "@argus/proto/tasks/v1/tasks";
import { accessFactsMigration, identitySpaces } from "@argus/spaces";
import { catalogDeletionsConsumer } from "./cascades/catalogDeletions.ts";
import { tasksSpaceCascade } from "./cascades/spaceCascade.ts";
import type { TasksDeps } from "./deps.ts";
import { catalogEvaluators } from "./peers/catalogEvaluators.ts";
import { catalogEndpoints, catalogIntegrations } from "./peers/catalogIntegrations.ts";
import { datasetExperimentRuns } from "./peers/experimentRuns.ts";
import { servicePlaces } from "./peers/places.ts";
import { tracingProjectSpans } from "./peers/projectSpans.ts";
import { project } from "./projection.ts";
import { taskRunCommands } from "./taskRuns/taskRunCommands.ts";
import { taskRunQueries } from "./taskRuns/taskRunQueries.ts";
import { taskCommands } from "./tasks/taskCommands.ts";
import { taskQueries } from "./tasks/taskQueries.ts";
import { startContinuousScheduler } from "./worker/continuousScheduler.ts";
import { startRunWorker } from "./worker/runWorker.ts";
import { resolveIsolation } from "./worker/sandbox.ts";

export function taskServices(d: TasksDeps): ServiceBinding[] {
  return [
    bindService(TaskServiceService, {
      ...taskCommands(d),
      ...taskQueries(d),
      ...taskRunCommands(d),
      ...taskRunQueries(d),
    }),
  ];
}

const flag = (describe: string) => oneOf(describe, ["true", "false"], "false");

const config = {
  ARGUS_TASK_ALLOW_LOOPBACK: flag(
    "call AI providers on loopback (and plain http there): tests and local development only",
  ),
  ARGUS_TASK_ALLOW_PRIVATE: flag(
    "call AI providers at private, link-local, CGNAT and unique-local addresses (an internal network)",
  ),
  ARGUS_TASK_PROVIDER_CONCURRENCY: int(
    "calls to one AI integration at once per replica",
    4,
    1,
    256,
  ),
  ARGUS_TASK_PROVIDER_TIMEOUT_MS: int("how long one provider call may take", 30_000, 100, 600_000),
  ARGUS_TASK_AWS_REGION: str(
    "the AWS region AWS_BEDROCK integrations are called in when they name none",
    "us-east-1",
  ),
  ARGUS_TASK_AWS_STS_ENDPOINT: str(
    "the STS endpoint AWS_BEDROCK role assumption calls (a VPC endpoint, tests); empty: AWS's",
    "",
  ),
  ARGUS_TASK_VERTEX_ENDPOINT: str(
    "the base URL VERTEX_AI integrations are called at (a private endpoint, tests); empty: Google's",
    "",
  ),
  ARGUS_TASK_PYTHON: str("the Python interpreter CUSTOM code evaluators run on", "python3"),
  ARGUS_TASK_SANDBOX_ISOLATION: oneOf(
    "how CUSTOM evaluator processes are kept apart: auto (a network namespace where the OS allows, else audit hooks), namespace (required), hooks, off (limits only; trusted code)",
    ["auto", "namespace", "hooks", "off"],
    "auto",
  ),
  ARGUS_TASK_SANDBOX_TIMEOUT_MS: int(
    "wall time of one item in a CUSTOM evaluator",
    5_000,
    100,
    600_000,
  ),
  ARGUS_TASK_SANDBOX_MEMORY_MB: int(
    "address space of one CUSTOM evaluator process",
    256,
    64,
    65_536,
  ),
  ARGUS_TASK_SANDBOX_OUTPUT_BYTES: int(
    "bytes of one item's answer from a CUSTOM evaluator",
    65_536,
    1_024,
    16_777_216,
  ),
  ARGUS_TASK_SANDBOX_PROCESSES: int(
    "processes of one CUSTOM evaluator in one run (its items evaluated at once)",
    2,
    1,
    64,
  ),
  ARGUS_TASK_CONTINUOUS_INTERVAL_MS: int(
    "how often a continuous task's new spans become a run",
    60_000,
    100,
    86_400_000,
  ),
  ARGUS_TASK_CONTINUOUS_LAG_MS: int(
    "how far behind now a continuous task's window ends (spans exported later than this after they started are missed)",
    10_000,
    0,
    3_600_000,
  ),
  ARGUS_TASK_RUNS_PER_REPLICA: int("task runs worked on at once per replica", 2, 1, 64),
  ARGUS_TASK_RUN_LEASE_MS: int(
    "how long a worker's claim on a run lasts without a heartbeat (a dead worker's run is resumed by another after it)",
    30_000,
    300,
    600_000,
  ),
};

export const taskRunner = defineService("task-runner", {
  config,
  // Identity's space facts, for lists.
  migrations: [...loadMigrations(migrationsDirOf("task-runner")), accessFactsMigration(2)].sort(
    (a, b) => a.id.localeCompare(b.id),
  ),
  project,
  // A deleted space's tasks go with it (and their runs); a deleted evaluator or integration
  // stops the runs that use it.
  consumers: (d) => [
    tasksSpaceCascade({ schema: d.schema, subjectRoot: d.config.subjectRoot, clock: d.clock }),
    catalogDeletionsConsumer({ subjectRoot: d.config.subjectRoot }),
  ],
  async init(d) {
    const spans = tracingProjectSpans(d.channels.tracing!, d.self);
    const stopScheduler = startContinuousScheduler({
      pool: d.pool,
      commands: d.commands,
      spans,
      evaluators: catalogEvaluators(d.channels.catalog!, d.self),
      logger: d.logger,
      clock: d.clock,
      intervalMs: d.config.ARGUS_TASK_CONTINUOUS_INTERVAL_MS,
      lagMs: d.config.ARGUS_TASK_CONTINUOUS_LAG_MS,
    });
    const stopWorker = startRunWorker({
      pool: d.pool,
      commands: d.commands,
      runs: datasetExperimentRuns(d.channels.dataset!, d.self),
      spans,
      evaluators: {
        integrations: catalogIntegrations(d.channels.catalog!, d.self),
        endpoints: catalogEndpoints(d.channels.catalog!, d.self),
        policy: {
          allowLoopback: d.config.ARGUS_TASK_ALLOW_LOOPBACK === "true",
          allowPrivate: d.config.ARGUS_TASK_ALLOW_PRIVATE === "true",
        },
        perIntegration: d.config.ARGUS_TASK_PROVIDER_CONCURRENCY,
        providerTimeoutMs: d.config.ARGUS_TASK_PROVIDER_TIMEOUT_MS,
        clouds: {
          aws: {
            region: d.config.ARGUS_TASK_AWS_REGION,
            stsEndpoint: d.config.ARGUS_TASK_AWS_STS_ENDPOINT,
          },
          gcp: { endpoint: d.config.ARGUS_TASK_VERTEX_ENDPOINT },
        },
        sandbox: {
          python: d.config.ARGUS_TASK_PYTHON,
          isolation: resolveIsolation(
            d.config.ARGUS_TASK_SANDBOX_ISOLATION,
            d.config.ARGUS_TASK_PYTHON,
          ),
          timeoutMs: d.config.ARGUS_TASK_SANDBOX_TIMEOUT_MS,
          memoryBytes: d.config.ARGUS_TASK_SANDBOX_MEMORY_MB * 1024 * 1024,
          outputBytes: d.config.ARGUS_TASK_SANDBOX_OUTPUT_BYTES,
          processes: d.config.ARGUS_TASK_SANDBOX_PROCESSES,
        },
      },
      logger: d.logger,
      clock: d.clock,
      concurrency: d.config.ARGUS_TASK_RUNS_PER_REPLICA,
      leaseMs: d.config.ARGUS_TASK_RUN_LEASE_MS,
      pollMs: 1000,
    });
    return async () => {
      await stopScheduler();
      await stopWorker();
    };
  },
  grpc: (d) =>
    taskServices({
      pool: d.pool,
      commands: d.commands,
      spaces: identitySpaces(d.channels.identity!, d.pool),
      places: servicePlaces(d.channels.catalog!, d.channels.dataset!),
      clock: d.clock,
    }),
});
