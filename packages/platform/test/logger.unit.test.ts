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

  it("a child writes its fields on each line; a child's child both sets, the later one winning", () => {
    const lines: string[] = [];
    const root = createLogger({ service: "t", write: (l) => lines.push(l) });
    const call = root.child({ request_id: "r1", rpc: "a" });
    const inner = call.child({ rpc: "b", step: 2 });
    inner.warn("inner");
    call.info("outer");
    root.info("root");
    const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs[0]).toMatchObject({ msg: "inner", request_id: "r1", rpc: "b", step: 2 });
    expect(lines[0]!.match(/"rpc"/g)).toHaveLength(1);
    expect(recs[1]).toMatchObject({ msg: "outer", request_id: "r1", rpc: "a" });
    expect(recs[1]).not.toHaveProperty("step");
    expect(recs[2]).not.toHaveProperty("request_id");
  });

  it("a child's fields are those it was given, whatever the caller does with the object later", () => {
    const lines: string[] = [];
    const fields: Record<string, unknown> = { request_id: "r1" };
    const child = createLogger({ service: "t", write: (l) => lines.push(l) }).child(fields);
    fields.request_id = "changed";
    child.error("e", { token: "t0p" });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      request_id: "r1",
      level: "error",
      token: "[redacted]",
    });
  });

  it("a child below the level writes nothing, and redacts its bindings when it does write", () => {
    const lines: string[] = [];
    const child = createLogger({ service: "t", level: "warn", write: (l) => lines.push(l) }).child({
      password: "p",
      request_id: "r",
    });
    child.debug("no");
    child.info("no");
    expect(lines).toHaveLength(0);
    child.warn("yes");
    expect(JSON.parse(lines[0]!)).toMatchObject({ password: "[redacted]", request_id: "r" });
  });
});
