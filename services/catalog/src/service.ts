import {
  bindService,
  oneOf,
  optionalSecret,
  secret,
  secretBox,
  type ServiceBinding,
} from "@argus/platform";
import { defineService, loadMigrations, migrationsDirOf } from "@argus/service-host";
import { identitySpaces, restrictionsConsumer } from "@argus/spaces";
import {
  AiIntegrationDirectoryService,
  AiIntegrationServiceService,
} from "@argus/proto/catalog/v1/ai_integrations";
import {
  AnnotationConfigServiceService,
  AnnotationQueueServiceService,
} from "@argus/proto/catalog/v1/annotations";
import {
  AnnotationConfigDirectoryService,
  EvaluatorDirectoryService,
} from "@argus/proto/catalog/v1/config_directory";
import { EvaluatorServiceService } from "@argus/proto/catalog/v1/evaluators";
import {
  IntegrationDirectoryService,
  IntegrationServiceService,
} from "@argus/proto/catalog/v1/integrations";
import { ProjectDirectoryService } from "@argus/proto/catalog/v1/project_directory";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { PromptServiceService } from "@argus/proto/catalog/v1/prompts";
import { TagServiceService } from "@argus/proto/catalog/v1/tags";
import { aiIntegrationCommands } from "./aiIntegrations/aiIntegrationCommands.ts";
import { aiIntegrationDirectoryQueries } from "./aiIntegrations/aiIntegrationDirectory.ts";
import { aiIntegrationQueries } from "./aiIntegrations/aiIntegrationQueries.ts";
import { annotationConfigCommands } from "./annotationConfigs/annotationConfigCommands.ts";
import { annotationConfigDirectoryQueries } from "./annotationConfigs/annotationConfigDirectory.ts";
import { annotationConfigQueries } from "./annotationConfigs/annotationConfigQueries.ts";
import { annotationQueueCommands } from "./annotationQueues/annotationQueueCommands.ts";
import { annotationQueueQueries } from "./annotationQueues/annotationQueueQueries.ts";
import { annotationQueueRecordCommands } from "./annotationQueues/annotationQueueRecordCommands.ts";
import { identityQueueUsers } from "./annotationQueues/queueUsers.ts";
import { grpcSpanPort, uncheckedSpans } from "./annotationQueues/spanPort.ts";
import { datasetDeletionsConsumer } from "./cascades/datasetDeletions.ts";
import { monitorDeletionsConsumer } from "./cascades/monitorDeletions.ts";
import { spaceCascadeConsumer } from "./cascades/spaceCascade.ts";
import type { CatalogDeps } from "./deps.ts";
import { evaluatorCommands } from "./evaluators/evaluatorCommands.ts";
import { evaluatorDirectoryQueries } from "./evaluators/evaluatorDirectory.ts";
import { evaluatorQueries } from "./evaluators/evaluatorQueries.ts";
import { integrationCommands } from "./integrations/integrationCommands.ts";
import { integrationDirectoryQueries } from "./integrations/integrationDirectory.ts";
import { integrationQueries } from "./integrations/integrationQueries.ts";
import { grpcDatasetPort, noDatasets } from "./peers/datasetPort.ts";
import { grpcMonitorPort, noMonitors } from "./tags/monitorPort.ts";
import { project } from "./projection.ts";
import { projectCommands } from "./projects/projectCommands.ts";
import { projectDirectoryQueries } from "./projects/projectDirectory.ts";
import { projectQueries } from "./projects/projectQueries.ts";
import { promptCommands } from "./prompts/promptCommands.ts";
import { promptLabelCommands } from "./prompts/promptLabelCommands.ts";
import { promptQueries } from "./prompts/promptQueries.ts";
import { resourceTagCommands } from "./tags/resourceTagCommands.ts";
import { resourceTagQueries } from "./tags/resourceTagQueries.ts";
import { tagCommands } from "./tags/tagCommands.ts";
import { tagQueries } from "./tags/tagQueries.ts";

/** One gRPC service per resource: its commands beside its queries (both in its folder). */
function catalogServices(d: CatalogDeps): ServiceBinding[] {
  return [
    bindService(TagServiceService, {
      ...tagCommands(d),
      ...tagQueries(d),
      ...resourceTagCommands(d),
      ...resourceTagQueries(d),
    }),
    bindService(ProjectServiceService, { ...projectCommands(d), ...projectQueries(d) }),
    bindService(PromptServiceService, {
      ...promptCommands(d),
      ...promptLabelCommands(d),
      ...promptQueries(d),
    }),
    bindService(EvaluatorServiceService, { ...evaluatorCommands(d), ...evaluatorQueries(d) }),
    bindService(AnnotationConfigServiceService, {
      ...annotationConfigCommands(d),
      ...annotationConfigQueries(d),
    }),
    bindService(AnnotationQueueServiceService, {
      ...annotationQueueCommands(d),
      ...annotationQueueRecordCommands(d),
      ...annotationQueueQueries(d),
    }),
    bindService(AiIntegrationServiceService, {
      ...aiIntegrationCommands(d),
      ...aiIntegrationQueries(d),
    }),
    bindService(IntegrationServiceService, {
      ...integrationCommands(d),
      ...integrationQueries(d),
    }),
    // The lookup of services that store annotations (of examples, runs, spans), nobody else's.
    bindService(AnnotationConfigDirectoryService, annotationConfigDirectoryQueries(d), {
      resolveAnnotationConfigs: ["dataset", "tracing"],
    }),
    // The task runner's own: the provider, address and key a TEMPLATE evaluator's run calls.
    bindService(AiIntegrationDirectoryService, aiIntegrationDirectoryQueries(d), {
      resolveIntegration: ["task-runner"],
    }),
    // The task runner's own: the endpoint a REMOTE evaluator or an AGENT_CALL experiment calls.
    bindService(IntegrationDirectoryService, integrationDirectoryQueries(d), {
      resolveEndpoint: ["task-runner"],
    }),
    // The task runner's own: a continuous task's evaluators, for runs no caller triggered.
    bindService(EvaluatorDirectoryService, evaluatorDirectoryQueries(d), {
      resolveEvaluators: ["task-runner"],
    }),
    // The tracing service's own: where projects live, and ingestion's project on first use.
    bindService(ProjectDirectoryService, projectDirectoryQueries(d), {
      resolveProjects: ["tracing"],
      ensureProject: ["tracing"],
    }),
  ];
}

const flag = (describe: string) => oneOf(describe, ["true", "false"], "false");

export const catalog = defineService("catalog", {
  config: {
    ARGUS_INTEGRATION_ALLOW_LOOPBACK: flag(
      "AGENT and EVALUATOR endpoints on loopback (and plain http there): tests and local development only",
    ),
    ARGUS_INTEGRATION_ALLOW_PRIVATE: flag(
      "AGENT and EVALUATOR endpoints at private, link-local, CGNAT and unique-local addresses",
    ),
    ARGUS_SECRETS_KEY: secret(
      "key under which AI provider keys and endpoint header values are encrypted at rest",
      32,
    ),
    ARGUS_SECRETS_KEY_PREVIOUS: optionalSecret(
      "the key before the last rotation: what it sealed still opens, and is sealed anew when written",
      32,
    ),
  },
  migrations: loadMigrations(migrationsDirOf("catalog")),
  project,
  // Deleting a space deletes what it holds here (identity's SpaceDeleted events).
  // Identity's space and restriction events keep the facts lists read (@argus/spaces; the
  // tables are migration 0027). The durable names are the catalog's, as the registry has them.
  consumers: (d) => [
    spaceCascadeConsumer({
      schema: d.schema,
      subjectRoot: d.config.subjectRoot,
      clock: d.clock,
    }),
    restrictionsConsumer({ durable: "catalog-restrictions", subjectRoot: d.config.subjectRoot }),
    // A deleted dataset's tag attachments go with it (the dataset service's DatasetDeleted),
    // and a deleted monitor's (the tracing service's MonitorDeleted).
    datasetDeletionsConsumer({ subjectRoot: d.config.subjectRoot }),
    monitorDeletionsConsumer({ subjectRoot: d.config.subjectRoot }),
  ],
  grpc(d) {
    const identity = d.channels.identity!;
    const dataset = d.channels.dataset;
    return catalogServices({
      pool: d.pool,
      commands: d.commands,
      spaces: identitySpaces(identity, d.pool),
      // Resolving annotators is the catalog's own lookup: made as itself, not as the caller.
      users: identityQueueUsers(identity, d.self),
      datasets: dataset ? grpcDatasetPort(dataset) : noDatasets,
      monitors: d.channels.tracing ? grpcMonitorPort(d.channels.tracing) : noMonitors,
      // The tracing service, when deployed, confirms the spans and traces queue records name.
      spans: d.channels.tracing ? grpcSpanPort(d.channels.tracing, d.self) : uncheckedSpans,
      outbound: {
        allowLoopback: d.config.ARGUS_INTEGRATION_ALLOW_LOOPBACK === "true",
        allowPrivate: d.config.ARGUS_INTEGRATION_ALLOW_PRIVATE === "true",
      },
      secrets: secretBox(d.config.ARGUS_SECRETS_KEY, d.config.ARGUS_SECRETS_KEY_PREVIOUS),
      clock: d.clock,
    });
  },
});
