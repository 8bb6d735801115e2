import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { bindService, type ServiceBinding } from "@argus/platform";
import {
  accessFactsMigration,
  catalogAnnotationConfigs,
  identityAnnotators,
  identitySpaces,
} from "@argus/spaces";
import {
  DatasetServiceService,
  RunEvaluationDirectoryService,
} from "@argus/proto/dataset/v1/dataset";
import { bulkService, sweepAbandonedImports } from "./bulk/bulkService.ts";
import { datasetSpaceCascade } from "./cascades/spaceCascade.ts";
import { datasetCommands } from "./datasets/datasetCommands.ts";
import { datasetQueries } from "./datasets/datasetQueries.ts";
import type { DatasetDeps } from "./deps.ts";
import { exampleAnnotationCommands } from "./examples/exampleAnnotationCommands.ts";
import { exampleCommands } from "./examples/exampleCommands.ts";
import { exampleQueries } from "./examples/exampleQueries.ts";
import { experimentCommands } from "./experiments/experimentCommands.ts";
import { experimentQueries } from "./experiments/experimentQueries.ts";
import { runAnnotationCommands } from "./experiments/runAnnotationCommands.ts";
import { runEvaluationCommands } from "./experiments/runEvaluationCommands.ts";
import { runEvaluationQueries } from "./experiments/runEvaluationQueries.ts";
import { project } from "./projection.ts";

function datasetServices(d: DatasetDeps): ServiceBinding[] {
  return [
    bindService(DatasetServiceService, {
      ...datasetCommands(d),
      ...datasetQueries(d),
      ...exampleCommands(d),
      ...exampleQueries(d),
      ...exampleAnnotationCommands(d),
      ...experimentCommands(d),
      ...experimentQueries(d),
      ...runAnnotationCommands(d),
    }),
    // The task runner's own reads and writes of experiment runs, nobody else's.
    bindService(
      RunEvaluationDirectoryService,
      { ...runEvaluationQueries(d), ...runEvaluationCommands(d) },
      {
        runsToEvaluate: ["task-runner"],
        recordRunEvaluations: ["task-runner"],
        examplesToRun: ["task-runner"],
        startTaskExperiment: ["task-runner"],
        recordTaskExperimentRuns: ["task-runner"],
      },
    ),
    // The gateway's Arrow Flight endpoint: uploads and downloads, streamed.
    bulkService(d),
  ];
}

export const dataset = defineService("dataset", {
  config: {},
  // Identity's facts of each space, for lists (fed by the space cascade's consumer).
  migrations: [...loadMigrations(migrationsDirOf("dataset")), accessFactsMigration(2)].sort(
    (a, b) => a.id.localeCompare(b.id),
  ),
  project,
  consumers: (d) => [
    datasetSpaceCascade({ schema: d.schema, subjectRoot: d.config.subjectRoot, clock: d.clock }),
  ],
  init: async (d) => sweepAbandonedImports(d.pool, d.logger),
  grpc: (d) =>
    datasetServices({
      pool: d.pool,
      commands: d.commands,
      spaces: identitySpaces(d.channels.identity!, d.pool),
      // Annotation configs are named by the dataset service itself, not with the caller's rights.
      configs: catalogAnnotationConfigs(d.channels.catalog!, d.self),
      annotators: identityAnnotators(d.channels.identity!, d.self),
      clock: d.clock,
    }),
});
