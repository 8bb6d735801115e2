import { type Logger, startGrpcServer } from "@argus/platform";
import { startServiceRuntime } from "@argus/eventstore";
import type { IdentityConfig } from "./config.ts";
import { SCHEMA, migrations } from "./migrations.ts";
import { initialize } from "./initialize.ts";
import { identityServices } from "./service.ts";
import { auditConsumer } from "./auditConsumer.ts";
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
  const runtime = await startServiceRuntime({
    service: "identity",
    schema: SCHEMA,
    migrations,
    databaseUrl: config.DATABASE_URL,
    natsUrl: config.NATS_URL,
    stream: config.ARGUS_EVENTS_STREAM,
    subjectRoot: config.ARGUS_SUBJECT_ROOT,
    logger,
  });
  const { pool, store } = runtime;
  await syncPredefinedRoles(pool);
  await runtime.consume(auditConsumer(config.ARGUS_SUBJECT_ROOT));

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
    ready: runtime.ready,
  });

  return {
    grpcPort: server.port,
    probePort: server.probePort,
    async stop() {
      await server.shutdown();
      await runtime.stop();
    },
  };
}
export { loadIdentityConfig, type IdentityConfig } from "./config.ts";
