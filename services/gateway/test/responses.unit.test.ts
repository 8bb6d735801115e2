import { describe, expect, it } from "vitest";
import { loadDocument } from "../src/openapi/document.ts";
import { createResponseChecker } from "../src/openapi/responses.ts";

const check = createResponseChecker(loadDocument().document);
const space = {
  id: "U3BhY2U6eA==",
  organization_id: "T3JnYW5pemF0aW9uOng=",
  name: "n",
  description: "",
  created_at: "2026-01-01T00:00:00Z",
  is_private: false,
};

describe("response contract checker", () => {
  it("accepts a response that fits the declared schema", () => {
    expect(check("GET", "/v2/spaces/U3BhY2U6eA==", 200, "application/json", space)).toEqual([]);
    expect(
      check("GET", "/v2/spaces", 200, "application/json", {
        spaces: [space],
        pagination: { has_more: false },
      }),
    ).toEqual([]);
  });

  it("names a missing field, a wrong type and an undeclared status", () => {
    const { is_private: _omit, ...partial } = space;
    expect(check("GET", "/v2/spaces/x", 200, "application/json", partial).join()).toMatch(
      /is_private/,
    );
    expect(
      check("GET", "/v2/spaces/x", 200, "application/json", { ...space, name: 5 }).join(),
    ).toMatch(/\/name/);
    expect(check("POST", "/v2/spaces", 200, "application/json", space).join()).toMatch(
      /not declared/,
    );
  });

  it("checks Problem bodies of error responses", () => {
    const problem = {
      title: "t",
      status: 404,
      type: "x#resource-not-found",
      detail: "d",
      instance: "/v2/spaces/x",
    };
    expect(check("GET", "/v2/spaces/x", 404, "application/problem+json", problem)).toEqual([]);
    expect(
      check("GET", "/v2/spaces/x", 404, "application/problem+json", { status: 404 }).join(),
    ).toMatch(/title/);
  });
});
