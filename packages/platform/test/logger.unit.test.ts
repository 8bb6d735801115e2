import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.ts";

describe("logger", () => {
  it("writes one JSON object per line and redacts secret-looking keys at any depth", () => {
    const lines: string[] = [];
    const log = createLogger({ service: "t", write: (l) => lines.push(l) }).child({
      request_id: "r1",
    });
    log.info("hello", { api_key: "ak-raw", nested: { authorization: "Bearer x", ok: 1 }, n: 5n });
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(rec).toMatchObject({
      level: "info",
      service: "t",
      msg: "hello",
      request_id: "r1",
      api_key: "[redacted]",
      n: "5",
    });
    expect(rec.nested).toEqual({ authorization: "[redacted]", ok: 1 });
    expect(lines[0]).not.toContain("ak-raw");
  });

  it("drops records below the configured level", () => {
    const lines: string[] = [];
    const log = createLogger({ service: "t", level: "warn", write: (l) => lines.push(l) });
    log.info("no");
    log.warn("yes");
    expect(lines).toHaveLength(1);
  });
});
