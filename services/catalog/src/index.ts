import { type Logger, createChannel, startGrpcServer } from "@argus/platform";
import { startServiceRuntime } from "@argus/eventstore";
import type { CatalogConfig } from "./config.ts";
import { grpcDatasetPort, noDatasets } from "./datasetPort.ts";
import { SCHEMA, migrations } from "./migrations.ts";
import { catalogServices } from "./service.ts";
import { identitySpaces } from "./spaces.ts";
import { identityQueueUsers } from "./annotationQueuesUsers.ts";
import { spaceCascadeConsumer } from "./spaceCascade.ts";

export { SCHEMA };
export { registerResource, unregisterResource, findResource } from "./resources.ts";

export interface RunningCatalog {
  grpcPort: number;
  probePort: number | undefined;
  stop(): Promise<void>;
}

/** Wires the catalog process: migrate, relay, space cascade consumer, gRPC. Used by main and by tests. */
export async function startCatalog(config: CatalogConfig, logger: Logger): Promise<RunningCatalog> {
  // Subjects: <root>.catalog.<aggregate>.<EventType>, e.g. argus.catalog.tag.TagCreated.
  const runtime = await startServiceRuntime({
    service: "catalog",
    schema: SCHEMA,
    migrations,
    databaseUrl: config.DATABASE_URL,
    natsUrl: config.NATS_URL,
    stream: config.ARGUS_EVENTS_STREAM,
    subjectRoot: config.ARGUS_SUBJECT_ROOT,
    logger,
  });
  const { pool, store } = runtime;
  // Deleting a space deletes what it holds here (identity's SpaceDeleted events).
  await runtime.consume(
    spaceCascadeConsumer({ schema: SCHEMA, subjectRoot: config.ARGUS_SUBJECT_ROOT }),
  );

  const identity = createChannel(config.IDENTITY_GRPC_URL);
  const dataset = config.DATASET_GRPC_URL ? createChannel(config.DATASET_GRPC_URL) : undefined;
  const server = await startGrpcServer({
    port: config.CATALOG_GRPC_PORT,
    probePort: config.CATALOG_PROBE_PORT,
    services: catalogServices({
      pool,
      store,
      spaces: identitySpaces(identity, config.ARGUS_PRINCIPAL_SECRET),
      users: identityQueueUsers(identity, config.ARGUS_PRINCIPAL_SECRET),
      datasets: dataset ? grpcDatasetPort(dataset, config.ARGUS_PRINCIPAL_SECRET) : noDatasets,
    }),
    principalSecret: config.ARGUS_PRINCIPAL_SECRET,
    logger,
    ready: runtime.ready,
  });

  return {
    grpcPort: server.port,
    probePort: server.probePort,
    async stop() {
      await server.shutdown();
      identity.close();
      dataset?.close();
      await runtime.stop();
    },
  };
}
export { loadCatalogConfig, type CatalogConfig } from "./config.ts";
