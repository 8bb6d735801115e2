import { initTelemetry, createLogger } from "@argus/platform";
import { startIdentity } from "./index.ts";
import { loadIdentityConfig } from "./config.ts";

const config = loadIdentityConfig();
const telemetry = initTelemetry({
  service: "identity",
  otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
});
const logger = createLogger({ service: "identity", level: config.LOG_LEVEL });
const running = await startIdentity(config, logger);
logger.info("identity listening", { grpc_port: running.grpcPort, probe_port: running.probePort });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    logger.info("shutting down", { signal });
    void running.stop().finally(() => telemetry.shutdown().finally(() => process.exit(0)));
  });
}
