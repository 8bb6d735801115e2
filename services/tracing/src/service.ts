import type { Pool } from "pg";
import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { bindService, int, type ServiceBinding } from "@argus/platform";
import { SpanDirectoryService, TracingServiceService } from "@argus/proto/tracing/v1/tracing";
import {
  accessFactsMigration,
  catalogAnnotationConfigs,
  identityAnnotators,
  identitySpaces,
} from "@argus/spaces";
import { projectsConsumer } from "./cascades/projectsConsumer.ts";
import type { TracingDeps } from "./deps.ts";
import { catalogProjects } from "./projects/tracingProjects.ts";
import { annotateCommand } from "./spans/spanAnnotateCommand.ts";
import { deleteCommand } from "./spans/spanDeleteCommand.ts";
import { spanDirectoryQueries } from "./spans/spanDirectory.ts";
import { spanEvaluationCommands } from "./spans/spanEvaluationCommands.ts";
import { exportCommand } from "./spans/spanExportCommand.ts";
import { project } from "./spans/spanProjection.ts";
import { spanQueries } from "./spans/spanQueries.ts";
import { postgresSpanStore } from "./storage/postgres.ts";
import { startRetention } from "./storage/retention.ts";
import type { SpanStore } from "./storage/spanStore.ts";
import { traceDirectoryQueries } from "./traces/traceDirectory.ts";
import { traceQueries } from "./traces/traceQueries.ts";

function tracingServices(d: TracingDeps): ServiceBinding[] {
  return [
    bindService(TracingServiceService, {
      export: exportCommand(d),
      ...spanQueries(d),
      ...traceQueries(d),
      annotateSpans: annotateCommand(d),
      deleteSpans: deleteCommand(d),
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
  ];
}

const config = {
  ARGUS_SPAN_RETENTION_DAYS: int(
    "days of spans kept, by start time; older days are dropped as whole partitions",
    30,
    1,
    3650,
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
  consumers: (d) => [
    projectsConsumer({ subjectRoot: d.config.subjectRoot, store: storeOf(d.pool) }),
  ],
  async init(d) {
    startRetention(storeOf(d.pool), d.config.ARGUS_SPAN_RETENTION_DAYS, d.logger, d.clock);
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
    }),
});
