import type { Pool } from "pg";
import {
  defineService,
  loadMigrations,
  migrationsDirOf,
  type CommandHandler,
} from "@argus/eventstore";
import { bindService, type ServiceBinding } from "@argus/platform";
import {
  accessFactsMigration,
  catalogAnnotationConfigs,
  identityAnnotators,
  identitySpaces,
  type AnnotationConfigs,
  type Annotators,
  type Spaces,
} from "@argus/spaces";
import {
  DatasetServiceService,
  RunEvaluationDirectoryService,
} from "@argus/proto/dataset/v1/dataset";
import { datasetSpaceCascade } from "./adapters/spaceCascade.ts";
import { annotationCommands } from "./commands/annotations.ts";
import { datasetCommands } from "./commands/datasets.ts";
import { exampleCommands } from "./commands/examples.ts";
import { project } from "./projections/datasetProjection.ts";
import { datasetQueries } from "./queries/datasets.ts";
import { exampleQueries } from "./queries/examples.ts";
import { experimentCommands } from "./commands/experiments.ts";
import { experimentQueries } from "./queries/experiments.ts";
import { runEvaluationQueries } from "./queries/runEvaluations.ts";

/** What every dataset handler may use. */
export interface DatasetDeps {
  pool: Pool;
  commands: CommandHandler;
  spaces: Spaces;
  /** The catalog's annotation configs, which annotations name. */
  configs: AnnotationConfigs;
  /** Who annotates, with the e-mail annotations show. */
  annotators: Annotators;
}

export function datasetServices(d: DatasetDeps): ServiceBinding[] {
  return [
    bindService(DatasetServiceService, {
      ...datasetCommands(d),
      ...datasetQueries(d),
      ...exampleCommands(d),
      ...exampleQueries(d),
      ...experimentCommands(d),
      ...experimentQueries(d),
      ...annotationCommands(d),
    }),
    // The task runner's own reads and writes of experiment runs, nobody else's.
    bindService(RunEvaluationDirectoryService, runEvaluationQueries(d), {
      runsToEvaluate: ["task-runner"],
      recordRunEvaluations: ["task-runner"],
      examplesToRun: ["task-runner"],
      startTaskExperiment: ["task-runner"],
      recordTaskExperimentRuns: ["task-runner"],
    }),
  ];
}

export const dataset = defineService("dataset", {
  config: {},
  // Identity's facts of each space, for lists (fed by the space cascade's consumer).
  migrations: [...loadMigrations(migrationsDirOf("dataset")), accessFactsMigration(2)].sort(
    (a, b) => a.id.localeCompare(b.id),
  ),
  project,
  consumers: (d) => [datasetSpaceCascade({ schema: d.schema, subjectRoot: d.config.subjectRoot })],
  grpc: (d) =>
    datasetServices({
      pool: d.pool,
      commands: d.commands,
      spaces: identitySpaces(d.channels.identity!, d.pool),
      // Annotation configs are named by the dataset service itself, not with the caller's rights.
      configs: catalogAnnotationConfigs(d.channels.catalog!, d.self),
      annotators: identityAnnotators(d.channels.identity!, d.self),
    }),
});
