import { describe, expect, it } from "vitest";
import { ConfigError, callKeyEnv, generateCallKeys } from "@argus/platform";
import { loadIdentityConfig } from "../src/index.ts";

const keys = generateCallKeys();
const base = {
  DATABASE_URL: "postgres://h/db",
  ARGUS_API_KEY_PEPPER: "q".repeat(32),
  ...callKeyEnv("identity", keys),
};

describe("call keys", () => {
  it("identity holds the public keys of its callers and no private key", () => {
    expect(Object.keys(callKeyEnv("identity", keys)).sort()).toEqual([
      "CATALOG_PUBLIC_KEY",
      "DATASET_PUBLIC_KEY",
      "GATEWAY_PUBLIC_KEY",
      "TASK_RUNNER_PUBLIC_KEY",
      "TRACING_PUBLIC_KEY",
      "WEBHOOK_DISPATCHER_PUBLIC_KEY",
    ]);
    expect(() => loadIdentityConfig({ ...base, GATEWAY_PUBLIC_KEY: undefined })).toThrow(
      /GATEWAY_PUBLIC_KEY is required/,
    );
  });

  it("refuses a private key where a public key belongs, without echoing it", () => {
    const leaked = keys.gateway!.privateKey;
    let message = "";
    try {
      loadIdentityConfig({ ...base, GATEWAY_PUBLIC_KEY: leaked });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/GATEWAY_PUBLIC_KEY: not an Ed25519 public key/);
    expect(message).not.toContain(leaked);
  });
});

describe("ARGUS_INIT_API_KEY", () => {
  it("accepts any printable string of 32 characters or more", () => {
    const key = "a key with spaces & symbols !#$%";
    expect(key).toHaveLength(32);
    expect(loadIdentityConfig({ ...base, ARGUS_INIT_API_KEY: key }).ARGUS_INIT_API_KEY).toBe(key);
    expect(
      loadIdentityConfig({ ...base, ARGUS_INIT_API_KEY: "k".repeat(512) }).ARGUS_INIT_API_KEY,
    ).toHaveLength(512);
  });

  it("is optional: without it, initialization does not run", () => {
    expect(loadIdentityConfig(base).ARGUS_INIT_API_KEY).toBeUndefined();
  });

  it("rejects 31 characters, more than 512, control or non-ASCII characters, and edge spaces", () => {
    for (const bad of [
      "k".repeat(31),
      "k".repeat(513),
      `${"k".repeat(32)}\n`,
      `${"k".repeat(32)}é`,
      ` ${"k".repeat(32)}`,
      // Claims the Argus format but fails its checksum: the gateway would refuse it.
      `ak-argus-${"k".repeat(40)}`,
    ]) {
      expect(() => loadIdentityConfig({ ...base, ARGUS_INIT_API_KEY: bad })).toThrow(ConfigError);
    }
  });

  it("never echoes the rejected key", () => {
    const bad = "short-secret";
    expect(() => loadIdentityConfig({ ...base, ARGUS_INIT_API_KEY: bad })).toThrow(
      /ARGUS_INIT_API_KEY/,
    );
    try {
      loadIdentityConfig({ ...base, ARGUS_INIT_API_KEY: bad });
    } catch (e) {
      expect((e as Error).message).not.toContain(bad);
    }
  });
});
