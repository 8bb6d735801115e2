import { describe, expect, it } from "vitest";
import { decodeId, encodeId, uuidv7 } from "../src/ids.ts";

describe("ids", () => {
  it("uuidv7 is version 7, variant 10, and sorts by time", () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
  });

  it("public ids are standard base64 of Type:uuid and round-trip", () => {
    const u = uuidv7();
    const id = encodeId("Space", u);
    expect(Buffer.from(id, "base64").toString()).toBe(`Space:${u}`);
    expect(decodeId("Space", id)).toBe(u);
  });

  it("an id of another type, garbage, or a non-uuid payload decodes to null", () => {
    const u = uuidv7();
    expect(decodeId("Tag", encodeId("Space", u))).toBeNull();
    expect(decodeId("Space", "not base64!")).toBeNull();
    expect(decodeId("Space", "")).toBeNull();
    expect(decodeId("Space", Buffer.from("Space:123").toString("base64"))).toBeNull();
  });

  it("ids never contain URL-unsafe characters", () => {
    for (let i = 0; i < 200; i++) expect(encodeId("Space", uuidv7())).not.toMatch(/[+/]/);
  });
});
