import { countBuffersInHeapLimit, createLogger, shutdownTelemetry } from "@argus/platform";
import { loadGatewayConfig } from "./config.ts";
import { startGateway } from "./server.ts";

// Its OpenTelemetry SDK (if any) was started before, by the `--import` of @argus/platform's
// telemetryRegister.ts in its start command.
countBuffersInHeapLimit();
const config = loadGatewayConfig();
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
    void running.stop().finally(() => shutdownTelemetry().finally(() => process.exit(0)));
  });
}
