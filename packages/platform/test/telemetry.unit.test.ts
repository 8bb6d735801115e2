import { describe, expect, it } from "vitest";
import { processName, telemetryEnabled } from "../src/telemetry.ts";

describe("whether a process runs the OpenTelemetry SDK", () => {
  it("does not without an exporter configured", () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    expect(telemetryEnabled({ OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  it("does with an OTLP endpoint or a named traces exporter", () => {
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toBe(true);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c/v1/traces" })).toBe(
      true,
    );
    expect(telemetryEnabled({ OTEL_TRACES_EXPORTER: "none,console" })).toBe(true);
    expect(telemetryEnabled({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
  });

  it("does not when OTEL_SDK_DISABLED is true, whatever else is set", () => {
    expect(
      telemetryEnabled({
        OTEL_SDK_DISABLED: "TRUE",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      }),
    ).toBe(false);
    expect(
      telemetryEnabled({
        OTEL_SDK_DISABLED: "false",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
      }),
    ).toBe(true);
  });
});

describe("a process's default service.name", () => {
  it("is the service's folder for a service's entry point", () => {
    expect(processName("/app/services/task-runner/src/main.ts")).toBe("task-runner");
    expect(processName("services/gateway/src/main.ts")).toBe("gateway");
  });

  it("is the file name for any other entry point", () => {
    expect(processName("/app/scripts/migrate.ts")).toBe("migrate");
    expect(processName("/app/services/gateway/src/other.ts")).toBe("other");
    expect(processName(undefined)).toBe("argus");
  });
});
