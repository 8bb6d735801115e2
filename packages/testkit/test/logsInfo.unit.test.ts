import { describe, expect, it } from "vitest";
import { logsInfo } from "../src/stack.ts";

// A stack waits for a process's "listening" line (info) only when the process writes it.
describe("whether a stack's process writes info lines", () => {
  it("follows the level the process inherits when the stack sets none (LOG_LEVEL=warn ./argus up)", () => {
    expect(logsInfo({}, { LOG_LEVEL: "warn" })).toBe(false);
    expect(logsInfo({}, { LOG_LEVEL: "error" })).toBe(false);
    expect(logsInfo({}, { LOG_LEVEL: "debug" })).toBe(true);
  });

  it("prefers the stack's own level to the inherited one", () => {
    expect(logsInfo({ LOG_LEVEL: "warn" }, { LOG_LEVEL: "info" })).toBe(false);
    expect(logsInfo({ LOG_LEVEL: "info" }, { LOG_LEVEL: "warn" })).toBe(true);
  });

  it("is info when nobody sets a level", () => {
    expect(logsInfo({}, {})).toBe(true);
  });
});
