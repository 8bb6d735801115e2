import { connect } from "@nats-io/transport-node";
import { type Logger, createChannel, createPool, startGrpcServer } from "@argus/platform";
import {
  createEventStore,
  createRelay,
  defaultSubject,
  ensureStream,
  migrate,
} from "@argus/eventstore";
import type { CatalogConfig } from "./config.ts";
import { grpcDatasetPort, noDatasets } from "./datasetPort.ts";
import { SCHEMA, migrations } from "./migrations.ts";
import { catalogServices } from "./service.ts";
import { identitySpaces } from "./spaces.ts";
import { identityQueueUsers } from "./annotationQueuesUsers.ts";
import { startSpaceCascade } from "./spaceCascade.ts";

export { SCHEMA };
export { registerResource, unregisterResource, findResource } from "./resources.ts";

export interface RunningCatalog {
  grpcPort: number;
  probePort: number | undefined;
  stop(): Promise<void>;
}

/** Wires the catalog process: migrate, relay, space cascade consumer, gRPC. Used by main and by tests. */
export async function startCatalog(config: CatalogConfig, logger: Logger): Promise<RunningCatalog> {
  const pool = createPool({ url: config.DATABASE_URL, schema: SCHEMA, logger });
  await migrate(pool, { schema: SCHEMA, migrations });
  const nc = await connect({ servers: config.NATS_URL, name: "argus-catalog" });
  await ensureStream(nc, {
    name: config.ARGUS_EVENTS_STREAM,
    subjects: [`${config.ARGUS_SUBJECT_ROOT}.>`],
  });
  let wake = (): void => undefined;
  const store = createEventStore({ pool, schema: SCHEMA, onCommit: () => wake() });
  // Subjects: <root>.catalog.<aggregate>.<EventType>, e.g. argus.catalog.tag.TagCreated.
  const relay = createRelay({
    pool,
    schema: SCHEMA,
    nc,
    subject: defaultSubject("catalog", config.ARGUS_SUBJECT_ROOT),
    logger,
  });
  wake = () => relay.wake();
  relay.start();
  // Deleting a space deletes what it holds here (identity's SpaceDeleted events).
  const cascade = await startSpaceCascade({
    nc,
    pool,
    schema: SCHEMA,
    stream: config.ARGUS_EVENTS_STREAM,
    subjectRoot: config.ARGUS_SUBJECT_ROOT,
    logger,
  });

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
    ready: async () => {
      await pool.query("select 1");
      return !nc.isClosed();
    },
  });

  return {
    grpcPort: server.port,
    probePort: server.probePort,
    async stop() {
      await server.shutdown();
      identity.close();
      dataset?.close();
      await relay.stop();
      await cascade.stop();
      await nc.drain();
      await pool.end();
    },
  };
}
export { loadCatalogConfig, type CatalogConfig } from "./config.ts";
