import type { Server } from "node:http";
import {
  GATEWAY,
  SERVICE_REGISTRY,
  principalInvalidationSubject,
  principalSigner,
  secretBox,
  serviceCredential,
  systemClock,
  type Clock,
  type Logger,
} from "@argus/platform";
import { createApp, createLimiters } from "./app.ts";
import { createBackend } from "./backend.ts";
import { startGatewayGrpc, type RunningGatewayGrpc } from "./flight/server.ts";
import { createGatewayServer } from "./http/httpLimits.ts";
import { drainOnClose } from "./http/drain.ts";
import type { GatewayConfig } from "./config.ts";
import { identityAuthentication, identityLeaseRenewal } from "./auth/identityAuthenticator.ts";
import { identityIdempotencyKeys } from "./http/idempotentRequests.ts";
import { startOtlpGrpcServer, type RunningOtlpGrpc } from "./otlp/grpcServer.ts";
import { tracingExport } from "./otlp/ingest.ts";
import { bulkBackend } from "./flight/bulk.ts";
import { spanFlight } from "./flight/spans.ts";
import { clocksOf } from "./auth/principalCache.ts";
import { startPrincipalCaching } from "./auth/principalCaching.ts";
import { aiIntegrationHandlers } from "./routes/aiIntegrations.ts";
import { integrationHandlers } from "./routes/integrations.ts";
import { annotationConfigHandlers } from "./routes/annotationConfigs.ts";
import { annotationQueueHandlers } from "./routes/annotationQueues.ts";
import { apiKeyHandlers } from "./routes/apiKeys.ts";
import { evaluatorHandlers } from "./routes/evaluators.ts";
import { auditLogHandlers } from "./routes/auditLogs.ts";
import { dashboardHandlers } from "./routes/dashboards.ts";
import { datasetHandlers } from "./routes/datasets.ts";
import { experimentHandlers } from "./routes/experiments.ts";
import { monitorHandlers } from "./routes/monitors.ts";
import { organizationHandlers } from "./routes/organizations.ts";
import { projectHandlers } from "./routes/projects.ts";
import { promptHandlers } from "./routes/prompts.ts";
import { spaceHandlers } from "./routes/spaces.ts";
import { userHandlers } from "./routes/users.ts";
import { roleHandlers } from "./routes/roles.ts";
import { roleBindingHandlers } from "./routes/roleBindings.ts";
import { resourceRestrictionHandlers } from "./routes/resourceRestrictions.ts";
import { tagHandlers } from "./routes/tags.ts";
import { taskHandlers } from "./routes/tasks.ts";
import { spanHandlers } from "./routes/spans.ts";
import { traceHandlers } from "./routes/traces.ts";
import { webhookSubscriptionHandlers } from "./routes/webhookSubscriptions.ts";
import { webhookHandlers } from "./routes/webhooks.ts";

export interface RunningGateway {
  port: number;
  /** The OTLP/gRPC listener's bound port; undefined when ARGUS_OTLP_GRPC_PORT is 0. */
  otlpGrpcPort: number | undefined;
  /** The Arrow Flight listener's bound port; undefined when ARGUS_FLIGHT_PORT is 0. */
  flightPort: number | undefined;
  stop(): Promise<void>;
}

/**
 * Wires the gateway process: one channel per backing service, the app, the listener. `clock` is
 * its one "now" (rate limits, key expiries, the principal cache's lease).
 */
export async function startGateway(
  config: GatewayConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<RunningGateway> {
  // One key, two uses the signatures keep apart: callers' principals and the gateway's own calls.
  const signing = {
    callers: principalSigner(config.privateKey),
    self: serviceCredential(GATEWAY.name, config.privateKey),
  };
  const backends = Object.fromEntries(
    SERVICE_REGISTRY.map((d) => [
      d.name,
      createBackend(config.grpcUrls[d.name]!, signing, config.grpcDeadlineMs),
    ]),
  );
  const identity = backends.identity!;
  const catalog = backends.catalog!;
  const dataset = backends.dataset!;
  const tracing = backends.tracing!;
  const traceExport = tracingExport(tracing);
  // One set for both listeners: OTLP/gRPC spends the same per-key and per-address budgets.
  const limiters = createLimiters(config, clock);
  const caching = startPrincipalCaching({
    authenticate: identityAuthentication(identity, signing.self),
    renewLease: identityLeaseRenewal(identity, signing.self),
    nats: config.principalCache.nats,
    subject: principalInvalidationSubject(config.principalCache.subjectRoot),
    maxEntries: config.principalCache.maxEntries,
    maxTtlMs: config.principalCache.maxTtlMs,
    logger,
    clock: clocksOf(clock),
  });
  const app = createApp({
    authenticator: caching.authenticator,
    handlers: {
      ...organizationHandlers(identity),
      ...spaceHandlers(identity),
      ...userHandlers(identity),
      ...roleHandlers(identity),
      ...roleBindingHandlers(identity),
      ...resourceRestrictionHandlers(identity, { catalog, tracing }),
      ...apiKeyHandlers(identity),
      ...auditLogHandlers(identity),
      ...tagHandlers(catalog),
      ...projectHandlers(catalog),
      ...promptHandlers(catalog),
      ...evaluatorHandlers(catalog),
      ...annotationConfigHandlers(catalog),
      ...annotationQueueHandlers(catalog),
      ...aiIntegrationHandlers(catalog),
      ...integrationHandlers(catalog),
      ...datasetHandlers(dataset, config.cursorSecret),
      ...experimentHandlers(dataset, config.cursorSecret),
      ...spanHandlers(tracing),
      ...traceHandlers(tracing),
      ...monitorHandlers(tracing),
      ...dashboardHandlers(tracing),
      ...webhookHandlers(backends["webhook-dispatcher"]!),
      ...webhookSubscriptionHandlers(backends["webhook-dispatcher"]!),
      ...taskHandlers(backends["task-runner"]!),
    },
    config,
    logger,
    limiters,
    traceExport,
    spanWrites: spanFlight(bulkBackend(tracing, signing.callers)),
    clock,
    // Kept answers are sealed under a key derived from the cursor secret, apart from its use
    // for cursors: the gateway holds no other secret of its own.
    idempotencyKeys: identityIdempotencyKeys(
      identity,
      signing.self,
      secretBox(`idempotent-answers\0${config.cursorSecret}`),
    ),
    ready: async () =>
      (await Promise.all(Object.values(backends).map((b) => channelReady(b.channel)))).every(
        Boolean,
      ),
  });
  const server: Server = createGatewayServer(app, { errorsBase: config.errorsBase, logger });
  const release = async () => {
    await caching.stop();
    for (const b of Object.values(backends)) b.close();
  };
  let grpcs: RunningGatewayGrpc;
  try {
    // Arrow Flight on its own port, and with OTLP/gRPC on the REST port's HTTP/2 side.
    grpcs = await startGatewayGrpc({
      host: config.httpHost,
      port: config.flight.port,
      maxMessageBytes: config.flight.maxMessageBytes,
      authenticator: caching.authenticator,
      limiters,
      backends: { dataset, tracing },
      signer: signing.callers,
      otlp: {
        deps: { authenticator: caching.authenticator, limiters, export: traceExport },
        maxMessageBytes: config.otlp.maxBodyBytes,
      },
      logger,
    });
  } catch (err) {
    await release();
    throw err;
  }
  grpcs.share(server);
  const drain = drainOnClose(server);
  await new Promise<void>((resolve) => server.listen(config.httpPort, config.httpHost, resolve));
  const address = server.address();
  const closeHttp = async (graceMs: number) => {
    await Promise.all([drain(graceMs), grpcs.stop()]);
    server.closeAllConnections();
  };
  let otlpGrpc: RunningOtlpGrpc | undefined;
  if (config.otlp.grpcPort !== 0) {
    try {
      otlpGrpc = await startOtlpGrpcServer({
        host: config.httpHost,
        port: config.otlp.grpcPort,
        maxMessageBytes: config.otlp.maxBodyBytes,
        deps: { authenticator: caching.authenticator, limiters, export: traceExport },
        logger,
      });
    } catch (err) {
      // A port taken is fatal, as for the REST listener, but leaves nothing running behind.
      await closeHttp(0);
      await release();
      throw err;
    }
  }
  return {
    port: typeof address === "object" && address ? address.port : config.httpPort,
    otlpGrpcPort: otlpGrpc?.port,
    flightPort: grpcs.port,
    async stop() {
      await Promise.all([closeHttp(config.httpDrainMs), otlpGrpc?.stop()]);
      await release();
    },
  };
}

// A real-time deadline, not the gateway's Clock: grpc-js waits until this instant of its own.
function channelReady(channel: {
  waitForReady(deadline: Date, cb: (err?: Error) => void): void;
}): Promise<boolean> {
  return new Promise((resolve) =>
    channel.waitForReady(new Date(Date.now() + 1_000), (err) => resolve(!err)),
  );
}
