import { bindService, type ServiceBinding } from "@argus/platform";
import {
  defineService,
  loadMigrations,
  migrationsDirOf,
  type CommandHandler,
  type EventStore,
} from "@argus/eventstore";
import { AiIntegrationServiceService } from "@argus/proto/catalog/v1/ai_integrations";
import {
  AnnotationConfigServiceService,
  AnnotationQueueServiceService,
} from "@argus/proto/catalog/v1/annotations";
import { EvaluatorServiceService } from "@argus/proto/catalog/v1/evaluators";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { PromptServiceService } from "@argus/proto/catalog/v1/prompts";
import { TagServiceService } from "@argus/proto/catalog/v1/tags";
import type { Pool } from "pg";
import { grpcDatasetPort, noDatasets, type DatasetPort } from "./datasetPort.ts";
import { aiIntegrationHandlers } from "./aiIntegrations.ts";
import { annotationConfigHandlers } from "./annotationConfigs.ts";
import { annotationQueueHandlers } from "./annotationQueues.ts";
import { identityQueueUsers, type QueueUsers } from "./annotationQueuesUsers.ts";
import { evaluatorHandlers } from "./evaluators.ts";
import { projectHandlers } from "./projects.ts";
import { promptHandlers } from "./prompts.ts";
import { resourceTagHandlers } from "./resourceTags.ts";
import { project } from "./projection.ts";
import { spaceCascadeConsumer } from "./spaceCascade.ts";
import { identitySpaces, type Spaces } from "./spaces.ts";
import { tagHandlers } from "./tags.ts";

/** What every catalog area's handlers may use. */
export interface CatalogDeps {
  pool: Pool;
  store: EventStore;
  commands: CommandHandler;
  spaces: Spaces;
  datasets: DatasetPort;
  users: QueueUsers;
}

// Each area of the catalog adds its own gRPC service binding here.
export function catalogServices(deps: CatalogDeps): ServiceBinding[] {
  return [
    bindService(TagServiceService, { ...tagHandlers(deps), ...resourceTagHandlers(deps) }),
    bindService(ProjectServiceService, projectHandlers(deps)),
    bindService(PromptServiceService, promptHandlers(deps)),
    bindService(EvaluatorServiceService, evaluatorHandlers(deps)),
    bindService(AnnotationConfigServiceService, annotationConfigHandlers(deps)),
    bindService(AnnotationQueueServiceService, annotationQueueHandlers(deps)),
    bindService(AiIntegrationServiceService, aiIntegrationHandlers(deps)),
  ];
}

export const catalog = defineService("catalog", {
  config: {},
  migrations: loadMigrations(migrationsDirOf("catalog")),
  project,
  // Deleting a space deletes what it holds here (identity's SpaceDeleted events).
  consumers: (d) => [spaceCascadeConsumer({ schema: d.schema, subjectRoot: d.config.subjectRoot })],
  grpc(d) {
    const secret = d.config.principalSecret;
    const identity = d.channels.identity!;
    const dataset = d.channels.dataset;
    return catalogServices({
      pool: d.pool,
      store: d.store,
      commands: d.commands,
      spaces: identitySpaces(identity, secret),
      users: identityQueueUsers(identity, secret),
      datasets: dataset ? grpcDatasetPort(dataset, secret) : noDatasets,
    });
  },
});
