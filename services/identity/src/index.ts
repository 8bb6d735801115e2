import { connect } from "@nats-io/transport-node";
import { type Logger, createPool, startGrpcServer } from "@argus/platform";
import {
  createEventStore,
  createRelay,
  defaultSubject,
  ensureStream,
  migrate,
} from "@argus/eventstore";
import type { IdentityConfig } from "./config.ts";
import { SCHEMA, migrations } from "./migrations.ts";
import { initialize } from "./initialize.ts";
import { identityServices } from "./service.ts";
import { startAuditConsumer } from "./auditConsumer.ts";
import { syncPredefinedRoles } from "./predefinedRoles.ts";

export { SCHEMA };

export interface RunningIdentity {
  grpcPort: number;
  probePort: number | undefined;
  stop(): Promise<void>;
}

/** Wires the identity process: migrate, initialize, relay, gRPC. Used by main and by tests. */
export async function startIdentity(
  config: IdentityConfig,
  logger: Logger,
): Promise<RunningIdentity> {
  const pool = createPool({ url: config.DATABASE_URL, schema: SCHEMA, logger });
  await migrate(pool, { schema: SCHEMA, migrations });
  await syncPredefinedRoles(pool);
  const nc = await connect({ servers: config.NATS_URL, name: "argus-identity" });
  await ensureStream(nc, {
    name: config.ARGUS_EVENTS_STREAM,
    subjects: [`${config.ARGUS_SUBJECT_ROOT}.>`],
  });
  let wake = (): void => undefined;
  const store = createEventStore({ pool, schema: SCHEMA, onCommit: () => wake() });
  const relay = createRelay({
    pool,
    schema: SCHEMA,
    nc,
    subject: defaultSubject("identity", config.ARGUS_SUBJECT_ROOT),
    logger,
  });
  wake = () => relay.wake();
  relay.start();
  const audit = await startAuditConsumer({
    nc,
    pool,
    schema: SCHEMA,
    stream: config.ARGUS_EVENTS_STREAM,
    subjectRoot: config.ARGUS_SUBJECT_ROOT,
    logger,
  });

  if (config.ARGUS_INIT_API_KEY) {
    await initialize(
      { pool, store, pepper: config.ARGUS_API_KEY_PEPPER, logger },
      {
        orgName: config.ARGUS_INIT_ORG_NAME,
        spaceName: config.ARGUS_INIT_SPACE_NAME,
        adminEmail: config.ARGUS_INIT_ADMIN_EMAIL,
        adminName: config.ARGUS_INIT_ADMIN_NAME,
        apiKey: config.ARGUS_INIT_API_KEY,
      },
    );
  }

  const server = await startGrpcServer({
    port: config.IDENTITY_GRPC_PORT,
    probePort: config.IDENTITY_PROBE_PORT,
    services: identityServices({ pool, store, pepper: config.ARGUS_API_KEY_PEPPER }),
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
      await relay.stop();
      await audit.stop();
      await nc.drain();
      await pool.end();
    },
  };
}
export { loadIdentityConfig, type IdentityConfig } from "./config.ts";
