import { initTelemetry, createLogger } from "@argus/platform";
import { startCatalog } from "./index.ts";
import { loadCatalogConfig } from "./config.ts";

const config = loadCatalogConfig();
const telemetry = initTelemetry({
  service: "catalog",
  otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
});
const logger = createLogger({ service: "catalog", level: config.LOG_LEVEL });
const running = await startCatalog(config, logger);
logger.info("catalog listening", { grpc_port: running.grpcPort, probe_port: running.probePort });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    logger.info("shutting down", { signal });
    void running.stop().finally(() => telemetry.shutdown().finally(() => process.exit(0)));
  });
}
