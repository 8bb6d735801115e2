import { ConfigError, generateCallKeyPair } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { loadGatewayConfig } from "../src/config.ts";

const keys = generateCallKeyPair();
const secrets = { GATEWAY_PRIVATE_KEY: keys.privateKey, ARGUS_CURSOR_SECRET: "c".repeat(32) };

describe("gateway configuration", () => {
  it("applies defaults", () => {
    const { privateKey, ...rest } = loadGatewayConfig(secrets);
    expect(privateKey.asymmetricKeyType).toBe("ed25519");
    expect(rest).toEqual({
      httpHost: "127.0.0.1",
      httpPort: 8080,
      httpDrainMs: 2_000,
      grpcUrls: {
        identity: "127.0.0.1:50051",
        catalog: "127.0.0.1:50052",
        dataset: "127.0.0.1:50053",
        tracing: "127.0.0.1:50054",
        "webhook-dispatcher": "127.0.0.1:50055",
        "task-runner": "127.0.0.1:50056",
      },
      cursorSecret: "c".repeat(32),
      rateLimitPerSecond: 50,
      rateLimitBurst: 100,
      unauthRateLimitPerSecond: 10,
      unauthRateLimitBurst: 20,
      maxBodyBytes: 1_048_576,
      otlp: { maxBodyBytes: 16_777_216, grpcPort: 4317 },
      flight: { port: 8815, maxMessageBytes: 536_870_912 },
      grpcDeadlineMs: 5_000,
      idempotencyLeaseMs: 15_000,
      errorsBase: "https://argus.dev/errors",
      logLevel: "info",
      principalCache: {
        nats: undefined,
        subjectRoot: "argus",
        maxEntries: 10_000,
        maxTtlMs: 60_000,
      },
    });
  });

  it("caches principals only with a NATS URL, as the gateway's NATS user", () => {
    const { principalCache } = loadGatewayConfig({
      ...secrets,
      NATS_URL: "nats://nats:4222",
      NATS_USER: "gateway",
      NATS_PASSWORD: "pw",
      ARGUS_SUBJECT_ROOT: "prod",
      ARGUS_PRINCIPAL_CACHE_MAX_ENTRIES: "5",
      ARGUS_PRINCIPAL_CACHE_TTL_MS: "1000",
    });
    expect(principalCache).toEqual({
      nats: { servers: ["nats://nats:4222"], user: { user: "gateway", pass: "pw" } },
      subjectRoot: "prod",
      maxEntries: 5,
      maxTtlMs: 1_000,
    });
  });

  it("hands the invalidation listener every NATS server of a cluster", () => {
    const { principalCache } = loadGatewayConfig({
      ...secrets,
      NATS_URL: "nats://nats-0.nats:4222,nats://nats-1.nats:4222,nats://nats-2.nats:4222",
    });
    expect(principalCache.nats?.servers).toEqual([
      "nats://nats-0.nats:4222",
      "nats://nats-1.nats:4222",
      "nats://nats-2.nats:4222",
    ]);
  });

  it("reports every bad value at once without echoing secrets", () => {
    try {
      loadGatewayConfig({
        GATEWAY_PRIVATE_KEY: "short-secret",
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
        "GATEWAY_PRIVATE_KEY",
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
