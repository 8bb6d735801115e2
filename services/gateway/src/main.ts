import { createLogger, initTelemetry } from "@argus/platform";
import { loadGatewayConfig } from "./config.ts";
import { startGateway } from "./server.ts";

const config = loadGatewayConfig();
const telemetry = initTelemetry({ service: "gateway", otlpEndpoint: config.otlpEndpoint });
const logger = createLogger({ service: "gateway", level: config.logLevel });
const running = await startGateway(config, logger);
logger.info("gateway listening", {
  port: running.port,
  base_url: `http://127.0.0.1:${running.port}/v2`,
  otlp_http_endpoint: `http://127.0.0.1:${running.port}/v1/traces`,
  otlp_grpc_port: running.otlpGrpcPort ?? null,
  flight_port: running.flightPort ?? null,
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    logger.info("shutting down", { signal });
    void running.stop().finally(() => telemetry.shutdown().finally(() => process.exit(0)));
  });
}
