import type { Pool } from "pg";
import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { bindService, encodeExportMessage, int, type ServiceBinding } from "@argus/platform";
import { DashboardServiceService } from "@argus/proto/tracing/v1/dashboards";
import { MonitorServiceService } from "@argus/proto/tracing/v1/monitors";
import { SpanDirectoryService, TracingServiceService } from "@argus/proto/tracing/v1/tracing";
import {
  accessFactsMigration,
  catalogAnnotationConfigs,
  identityAnnotators,
  identitySpaces,
} from "@argus/spaces";
import { projectsConsumer } from "./cascades/projectsConsumer.ts";
import { spaceCascadeConsumer, tracingRestrictionsConsumer } from "./cascades/spaceCascade.ts";
import { webhooksConsumer } from "./cascades/webhooksConsumer.ts";
import { dashboardCommands } from "./dashboards/dashboardCommands.ts";
import { dashboardQueries } from "./dashboards/dashboardQueries.ts";
import type { TracingDeps } from "./deps.ts";
import { monitorCommands } from "./monitors/monitorCommands.ts";
import { monitorQueries } from "./monitors/monitorQueries.ts";
import { startMonitorScheduler } from "./monitors/monitorScheduler.ts";
import { dispatcherWebhooks, noWebhooks } from "./monitors/webhookPort.ts";
import { project } from "./projection.ts";
import { catalogProjects } from "./projects/tracingProjects.ts";
import { annotateCommand } from "./spans/spanAnnotateCommand.ts";
import { deleteCommand } from "./spans/spanDeleteCommand.ts";
import { spanDownload } from "./spans/spanDownload.ts";
import { spanDirectoryQueries } from "./spans/spanDirectory.ts";
import { spanEvaluationCommands } from "./spans/spanEvaluationCommands.ts";
import { exportCommand } from "./spans/spanExportCommand.ts";
import { spanQueries } from "./spans/spanQueries.ts";
import { spanWriteCommands } from "./spans/spanWriteCommands.ts";
import { postgresSpanStore } from "./storage/postgres.ts";
import { startRetention } from "./storage/retention.ts";
import type { SpanStore } from "./storage/spanStore.ts";
import { traceDirectoryQueries } from "./traces/traceDirectory.ts";
import { traceQueries } from "./traces/traceQueries.ts";

/**
 * The tracing service's definition, its span export's batches written by the encoder made for
 * them (encodeExportMessage: one buffer of the message's size instead of the generated
 * encoder's growing ones).
 */
const TRACING_SERVICE = {
  ...TracingServiceService,
  exportSpans: { ...TracingServiceService.exportSpans, responseSerialize: encodeExportMessage },
};

function tracingServices(d: TracingDeps): ServiceBinding[] {
  return [
    bindService(TRACING_SERVICE, {
      export: exportCommand(d),
      ...spanQueries(d),
      ...traceQueries(d),
      annotateSpans: annotateCommand(d),
      deleteSpans: deleteCommand(d),
      ...spanWriteCommands(d),
      ...spanDownload(d),
    }),
    // Own-behalf look-ups: the catalog's (annotation-queue records of spans and traces) and
    // the task runner's (what evaluation tasks read and write), each nobody else's.
    bindService(
      SpanDirectoryService,
      { ...spanDirectoryQueries(d), ...traceDirectoryQueries(d), ...spanEvaluationCommands(d) },
      {
        presentRecords: ["catalog"],
        spansToEvaluate: ["task-runner"],
        unitsToEvaluate: ["task-runner"],
        recordSpanEvaluations: ["task-runner"],
      },
    ),
    bindService(MonitorServiceService, { ...monitorQueries(d), ...monitorCommands(d) }),
    bindService(DashboardServiceService, { ...dashboardQueries(d), ...dashboardCommands(d) }),
  ];
}

const config = {
  ARGUS_SPAN_RETENTION_DAYS: int(
    "days of spans kept, by start time; older days are dropped as whole partitions (monitor evaluations too)",
    30,
    1,
    3650,
  ),
  ARGUS_MONITOR_MIN_CADENCE_SECONDS: int(
    "the shortest cadence a monitor is evaluated on by the schedule, whatever its own (tests lower it)",
    60,
    1,
    86_400,
  ),
  ARGUS_MONITOR_CONCURRENCY: int("monitor evaluations in flight per replica", 8, 1, 256),
  ARGUS_MONITOR_POLL_MS: int(
    "longest wait of an idle replica before it looks for due monitors again",
    1000,
    10,
    60_000,
  ),
  ARGUS_MONITOR_LEASE_MS: int(
    "how long a replica's claim on a due monitor holds; a dead replica's monitors are taken over after it",
    120_000,
    2_000,
    3_600_000,
  ),
  ARGUS_METRIC_TIMEOUT_MS: int(
    "the longest a metric's queries may run (an evaluation now, a widget's data)",
    30_000,
    100,
    600_000,
  ),
};

// One store per process: its cache of ready partitions serves every handler.
const stores = new WeakMap<Pool, SpanStore>();
const storeOf = (pool: Pool): SpanStore => {
  let store = stores.get(pool);
  if (!store) stores.set(pool, (store = postgresSpanStore(pool)));
  return store;
};

export const tracing = defineService("tracing", {
  config,
  // Identity's space facts: the space look-ups of @argus/spaces keep their copy up to date.
  migrations: [...loadMigrations(migrationsDirOf("tracing")), accessFactsMigration(2)].sort(
    (a, b) => a.id.localeCompare(b.id),
  ),
  project,
  consumers: (d) => {
    const cascade = { schema: d.schema, project, clock: d.clock };
    const subjectRoot = d.config.subjectRoot;
    return [
      projectsConsumer({ subjectRoot, store: storeOf(d.pool), cascade }),
      spaceCascadeConsumer({ subjectRoot, cascade }),
      tracingRestrictionsConsumer(subjectRoot),
      webhooksConsumer({ subjectRoot, cascade }),
    ];
  },
  async init(d) {
    const stopRetention = startRetention(
      storeOf(d.pool),
      d.config.ARGUS_SPAN_RETENTION_DAYS,
      d.logger,
      d.clock,
      d.pool,
    );
    const stopScheduler = startMonitorScheduler({
      pool: d.pool,
      commands: d.commands,
      clock: d.clock,
      logger: d.logger,
      concurrency: d.config.ARGUS_MONITOR_CONCURRENCY,
      pollMs: d.config.ARGUS_MONITOR_POLL_MS,
      leaseMs: d.config.ARGUS_MONITOR_LEASE_MS,
      floorSeconds: d.config.ARGUS_MONITOR_MIN_CADENCE_SECONDS,
    });
    return async () => {
      stopRetention();
      await stopScheduler();
    };
  },
  grpc: (d) =>
    tracingServices({
      pool: d.pool,
      commands: d.commands,
      spaces: identitySpaces(d.channels.identity!, d.pool),
      projects: catalogProjects(d.channels.catalog!, d.self, d.pool),
      store: storeOf(d.pool),
      configs: catalogAnnotationConfigs(d.channels.catalog!, d.self),
      annotators: identityAnnotators(d.channels.identity!, d.self),
      retentionDays: d.config.ARGUS_SPAN_RETENTION_DAYS,
      clock: d.clock,
      webhooks: d.channels["webhook-dispatcher"]
        ? dispatcherWebhooks(d.channels["webhook-dispatcher"])
        : noWebhooks,
      statementTimeoutMs: d.config.ARGUS_METRIC_TIMEOUT_MS,
    }),
});
