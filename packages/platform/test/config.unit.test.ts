import { describe, expect, it } from "vitest";
import {
  ConfigError,
  int,
  loadConfig,
  natsServers,
  oneOf,
  optionalNatsServers,
  secret,
  str,
  url,
} from "../src/config.ts";

const spec = {
  PORT: int("port", 8080, 0, 65535),
  DB: url("database", ["postgres:"]),
  KEY: secret("key", 32),
  MODE: oneOf("mode", ["a", "b"], "a"),
  NAME: str("name", "x"),
};

describe("loadConfig", () => {
  it("applies defaults and parses values", () => {
    const c = loadConfig(spec, { DB: "postgres://h/db", KEY: "k".repeat(32) });
    expect(c).toEqual({
      PORT: 8080,
      DB: "postgres://h/db",
      KEY: "k".repeat(32),
      MODE: "a",
      NAME: "x",
    });
  });

  it("reports every bad value at once, one line each, without echoing secrets", () => {
    let err: unknown;
    try {
      loadConfig(spec, { PORT: "70000", DB: "mysql://h", KEY: "short-secret-value", MODE: "c" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).toMatch(/PORT: expected 0..65535/);
    expect(problems.join("\n")).toMatch(/DB: expected a postgres: URL/);
    expect(problems.join("\n")).toMatch(/KEY: must be at least 32 characters/);
    expect(problems.join("\n")).toMatch(/MODE: expected one of a, b/);
    expect((err as Error).message).not.toContain("short-secret-value");
  });

  it("a missing required variable is named", () => {
    expect(() => loadConfig(spec, { KEY: "k".repeat(32) })).toThrow(/DB is required/);
  });
});

describe("NATS servers (NATS_URL)", () => {
  const spec = { NATS_URL: natsServers("nats", "nats://127.0.0.1:4222") };

  it("is one URL, or every server's separated by commas, each handed on", () => {
    expect(loadConfig(spec, {}).NATS_URL).toEqual(["nats://127.0.0.1:4222"]);
    expect(loadConfig(spec, { NATS_URL: "nats://nats:4222" }).NATS_URL).toEqual([
      "nats://nats:4222",
    ]);
    expect(
      loadConfig(spec, {
        NATS_URL: "nats://nats-0.nats:4222, nats://nats-1.nats:4222,tls://u:p@nats-2.nats:4222,",
      }).NATS_URL,
    ).toEqual(["nats://nats-0.nats:4222", "nats://nats-1.nats:4222", "tls://u:p@nats-2.nats:4222"]);
  });

  it("names the part that is not a NATS URL", () => {
    expect(() => loadConfig(spec, { NATS_URL: "nats://a:4222,b c" })).toThrow(
      /NATS_URL: "b c" is not a URL/,
    );
    expect(() => loadConfig(spec, { NATS_URL: "nats://a:4222,http://b:4222" })).toThrow(
      /NATS_URL: "http:\/\/b:4222": expected a nats: or tls: URL/,
    );
    expect(() => loadConfig(spec, { NATS_URL: " , " })).toThrow(/NATS_URL: no server URL/);
  });

  it("may be left unset where it is optional", () => {
    const optional = { NATS_URL: optionalNatsServers("nats") };
    expect(loadConfig(optional, {}).NATS_URL).toBeUndefined();
    expect(loadConfig(optional, { NATS_URL: "nats://a:4222,nats://b:4222" }).NATS_URL).toEqual([
      "nats://a:4222",
      "nats://b:4222",
    ]);
  });
});
