// Imported before each process's entry point, e.g.
//   node --import ./packages/platform/src/telemetryRegister.ts services/catalog/src/main.ts
// so that the OpenTelemetry SDK and its module hooks are in place before anything the
// instrumentations patch (http, express, @grpc/grpc-js, pg) is imported. Imports nothing else
// of the project. Without an exporter configured it does nothing (telemetry.ts).
import { startTelemetry } from "./telemetry.ts";

await startTelemetry();
