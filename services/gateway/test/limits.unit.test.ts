import { LIMITS } from "@argus/contracts/limits";
import { DomainError, encodeId } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { applyLimits, loadDocument } from "../src/openapi/document.ts";
import { compileOperations } from "../src/openapi/operations.ts";

const loaded = loadDocument();
const createTag = compileOperations(loaded.document).find((o) => o.operationId === "create_tag")!;
const SPACE_ID = encodeId("Space", "0192f4a0-0000-7000-8000-000000000000");

/** What the edge says of a tag name: "ok", or the problem type it is refused with. */
function edge(name: string): string {
  try {
    createTag.validate({ params: {}, query: {}, body: { name, space_id: SPACE_ID } });
    return "ok";
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
}

describe("limits come from @argus/contracts", () => {
  it("the served document carries the numbers, not the names", () => {
    expect(loaded.text).not.toContain("x-argus-limit");
    const schemas = loaded.document.components!.schemas!;
    const name = (schemas.CreateTagRequest!.properties as Record<string, { maxLength: number }>)
      .name!;
    expect(name.maxLength).toBe(LIMITS.TAG_NAME_MAX);
  });

  it("tag names are measured as sent, in code points: 100 pass, 101 do not, padding counts", () => {
    expect(edge("n".repeat(100))).toBe("ok");
    expect(edge("😀".repeat(100))).toBe("ok");
    expect(edge("n".repeat(101))).toBe("invalid-request");
    expect(edge(` ${"n".repeat(99)} `)).toBe("invalid-request");
    expect(edge(` ${"n".repeat(100)} `)).toBe("invalid-request");
    expect(edge("")).toBe("invalid-request");
  });

  it("refuses an unknown limit name or one on a schema that is not string, array or integer", () => {
    expect(() => applyLimits({ type: "string", "x-argus-limit": "NOPE" })).toThrow(/unknown/);
    expect(() => applyLimits({ type: "boolean", "x-argus-limit": "TAG_NAME_MAX" })).toThrow(
      /string, array or integer/,
    );
  });

  it("an integer's limit is its maximum (a page size)", () => {
    const limit = { type: "integer", minimum: 1, "x-argus-limit": "EXAMPLES_PAGE_MAX" };
    applyLimits(limit);
    expect(limit).toEqual({ type: "integer", minimum: 1, maximum: LIMITS.EXAMPLES_PAGE_MAX });
  });
});
