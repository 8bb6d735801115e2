import { describe, expect, it } from "vitest";
import { quoteSchema } from "../src/schema/schemaName.ts";

describe("quoteSchema", () => {
  it("quotes plain lower-case identifiers", () => {
    expect(quoteSchema("identity")).toBe('"identity"');
    expect(quoteSchema("es_test_01")).toBe('"es_test_01"');
  });

  it.each(['a"b', "Identity", "1abc", "a;drop", "", "x".repeat(64)])("refuses %j", (name) => {
    expect(() => quoteSchema(name)).toThrow(TypeError);
  });
});
