import { describe, expect, it } from "vitest";
import { ConfigError, int, loadConfig, oneOf, secret, str, url } from "../src/config.ts";

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
