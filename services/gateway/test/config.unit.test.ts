import { ConfigError } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../src/config.ts";

const secrets = { ARGUS_PRINCIPAL_SECRET: "p".repeat(32), ARGUS_CURSOR_SECRET: "c".repeat(32) };

describe("gateway configuration", () => {
  it("applies defaults", () => {
    expect(loadGatewayConfig(secrets)).toEqual({
      httpHost: "127.0.0.1",
      httpPort: 8080,
      grpcUrls: { identity: "127.0.0.1:50051", catalog: "127.0.0.1:50052" },
      principalSecret: "p".repeat(32),
      cursorSecret: "c".repeat(32),
      rateLimitPerSecond: 50,
      rateLimitBurst: 100,
      unauthRateLimitPerSecond: 10,
      unauthRateLimitBurst: 20,
      maxBodyBytes: 1_048_576,
      grpcDeadlineMs: 5_000,
      errorsBase: "https://argus.dev/errors",
      logLevel: "info",
      otlpEndpoint: undefined,
    });
  });

  it("reports every bad value at once without echoing secrets", () => {
    try {
      loadGatewayConfig({
        ARGUS_PRINCIPAL_SECRET: "short-secret",
        ARGUS_RATE_LIMIT_BURST: "0",
        ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND: "0",
        ARGUS_UNAUTH_RATE_LIMIT_BURST: "-1",
        ARGUS_HTTP_PORT: "http",
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems.join("\n");
      for (const name of [
        "ARGUS_PRINCIPAL_SECRET",
        "ARGUS_CURSOR_SECRET",
        "ARGUS_RATE_LIMIT_BURST",
        "ARGUS_UNAUTH_RATE_LIMIT_PER_SECOND",
        "ARGUS_UNAUTH_RATE_LIMIT_BURST",
        "ARGUS_HTTP_PORT",
      ]) {
        expect(problems).toContain(name);
      }
      expect(problems).not.toContain("short-secret");
    }
  });

  it("drops a trailing slash from the errors base", () => {
    expect(
      loadGatewayConfig({ ...secrets, ARGUS_ERRORS_BASE: "https://example.com/errors/" })
        .errorsBase,
    ).toBe("https://example.com/errors");
  });
});
