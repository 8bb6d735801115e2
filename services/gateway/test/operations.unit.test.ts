import { DomainError, encodeId } from "@argus/platform";
import { describe, expect, it } from "vitest";
import { loadDocument, type OpenApiDocument } from "../src/openapi/document.ts";
import {
  compileOperations,
  type CompiledOperation,
  type RawInput,
} from "../src/openapi/operations.ts";

const ops = compileOperations(loadDocument().document);
const op = (id: string): CompiledOperation => ops.find((o) => o.operationId === id)!;
const SPACE_ID = encodeId("Space", "0192f4a0-0000-7000-8000-000000000000");
const ORG_ID = encodeId("Organization", "0192f4a0-0000-7000-8000-000000000001");

function failure(o: CompiledOperation, input: Partial<RawInput>): DomainError {
  try {
    o.validate({ params: {}, query: {}, body: undefined, ...input });
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error("expected a validation failure");
}

describe("route compilation", () => {
  it("registers every operation of the document with its Express path", () => {
    expect(ops.map((o) => [o.operationId, o.method, o.path, o.paginated, o.hasBody])).toEqual(
      // Every group adds its own operations; these rows pin the compilation rules.
      expect.arrayContaining([
        ["list_organizations", "get", "/v2/organizations", true, false],
        ["create_organization", "post", "/v2/organizations", false, true],
        ["get_organization", "get", "/v2/organizations/{org_id}", false, false],
        ["list_spaces", "get", "/v2/spaces", true, false],
        ["create_space", "post", "/v2/spaces", false, true],
        ["get_space", "get", "/v2/spaces/{space_id}", false, false],
        ["list_tags", "get", "/v2/tags", true, false],
        ["list_project_tags", "get", "/v2/projects/{project_id}/tags", false, false],
        ["remove_project_tags", "delete", "/v2/projects/{project_id}/tags", false, true],
      ]),
    );
  });

  it("compiles every operation's validators (on first use, or when prepared), strictly", () => {
    expect(ops.length).toBeGreaterThan(150);
    for (const o of ops) expect(() => o.prepare(), o.operationId).not.toThrow();
    // A schema ajv's strict mode refuses fails when compiled, not silently.
    const [loose] = compileOperations({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/v2/x": {
          post: {
            operationId: "x",
            requestBody: {
              content: { "application/json": { schema: { type: "object", unknownKeyword: 1 } } },
            },
          },
        },
      },
    });
    expect(() => loose!.prepare()).toThrow(/unknownKeyword/);
    expect(() => loose!.validate({ params: {}, query: {}, body: {} })).toThrow(/unknownKeyword/);
  });

  it("refuses documents it cannot serve correctly", () => {
    const base = (op: object): OpenApiDocument => ({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: { "/v2/x": { get: { operationId: "x", ...op } } },
    });
    const cursor = { name: "cursor", in: "query", schema: { type: "string" } };
    expect(() => compileOperations(base({ parameters: [cursor] }))).toThrow(/limit/);
    expect(() => compileOperations(base({ "x-argus-validation-status": 418 }))).toThrow(
      /400 or 422/,
    );
    expect(() => compileOperations(base({ operationId: undefined }))).toThrow(/operationId/);
    expect(() => compileOperations(base({ "x-argus-max-body-bytes": 1024 }))).toThrow(
      /needs a request body/,
    );
    const withBody = (bytes: unknown) =>
      base({
        "x-argus-max-body-bytes": bytes,
        requestBody: { content: { "application/json": { schema: { type: "object" } } } },
      });
    expect(() => compileOperations(withBody(0))).toThrow(/positive integer/);
    expect(() => compileOperations(withBody("8MiB"))).toThrow(/positive integer/);
    expect(compileOperations(withBody(8 * 1024 * 1024))[0]!.maxBodyBytes).toBe(8 * 1024 * 1024);
  });

  it("gives body violations the status the operation chooses", () => {
    const doc: OpenApiDocument = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/v2/things/{id}/tags": {
          post: {
            operationId: "attach",
            "x-argus-validation-status": 422,
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    additionalProperties: false,
                    required: ["tag_ids"],
                    properties: {
                      tag_ids: {
                        type: "array",
                        minItems: 1,
                        maxItems: 100,
                        items: { type: "string" },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const [attach] = compileOperations(doc);
    const e = failure(attach!, { body: { tag_ids: [] } });
    expect(e.type).toBe("validation-error");
    expect(e.message).toBe("'tag_ids' must contain at least 1 item");
    expect(failure(attach!, { body: { tag_ids: ["a"], extra: 1 } }).type).toBe("validation-error");
    expect(failure(attach!, {}).type).toBe("invalid-request");
  });
});

describe("id validation", () => {
  it("accepts a well-formed id in the path", () => {
    expect(
      op("get_space").validate({ params: { space_id: SPACE_ID }, query: {}, body: undefined })
        .params,
    ).toEqual({
      space_id: SPACE_ID,
    });
  });

  it("answers a malformed path id with 404, as it names no resource", () => {
    for (const bad of ["not base64!", "abc", "a".repeat(300), "U3BhY2U6MTIz=====", ""]) {
      expect(failure(op("get_space"), { params: { space_id: bad } }).type, bad).toBe(
        "resource-not-found",
      );
    }
  });

  it("answers a malformed id in the query or body with 400", () => {
    expect(failure(op("list_spaces"), { query: { org_id: "%%" } }).type).toBe("invalid-request");
    const e = failure(op("create_space"), { body: { name: "n", organization_id: "????" } });
    expect([e.type, e.message]).toEqual(["invalid-request", "'organization_id' is malformed"]);
  });
});

describe("limit validation", () => {
  const list = (query: Record<string, unknown>) =>
    op("list_spaces").validate({ params: {}, query, body: undefined }).query;

  it("defaults to 50 and coerces the query string", () => {
    expect(list({})).toEqual({ limit: 50 });
    expect(list({ limit: "1" })).toEqual({ limit: 1 });
    expect(list({ limit: "100", name: "prod" })).toEqual({ limit: 100, name: "prod" });
  });

  it.each([
    ["0", "query parameter must be at least 1"],
    ["101", "must be at most 100"],
    ["1.5", "must be of type integer"],
    ["ten", "must be of type integer"],
  ])("refuses limit=%s", (limit, message) => {
    const e = failure(op("list_spaces"), { query: { limit } });
    expect(e.type).toBe("invalid-request");
    expect(e.message).toContain(message.replace("query parameter ", ""));
  });

  it("refuses a repeated limit and unknown parameters", () => {
    expect(failure(op("list_spaces"), { query: { limit: ["1", "2"] } }).type).toBe(
      "invalid-request",
    );
    expect(failure(op("list_spaces"), { query: { nmae: "x" } }).message).toBe(
      "unknown query parameter 'nmae'",
    );
  });
});

describe("create_space body", () => {
  const create = op("create_space");
  const body = (extra: Record<string, unknown>) => ({
    name: "n",
    organization_id: ORG_ID,
    ...extra,
  });

  it("accepts the documented fields", () => {
    expect(() =>
      create.validate({
        params: {},
        query: {},
        body: body({ description: "d", is_private: true }),
      }),
    ).not.toThrow();
  });

  it.each([
    [{ id: SPACE_ID }, "'id' is not an accepted field"],
    [{ created_at: "2024-01-01T00:00:00Z" }, "'created_at' is not an accepted field"],
    [{ name: "" }, "'name' must be at least 1 character"],
    [{ name: 7 }, "'name' must be of type string"],
    [{ is_private: "yes" }, "'is_private' must be of type boolean"],
  ])("refuses %j", (extra, message) => {
    const e = failure(create, { body: body(extra) });
    expect([e.type, e.message]).toEqual(["invalid-request", message]);
  });

  it("names a missing required field", () => {
    expect(failure(create, { body: { name: "n" } }).message).toBe("'organization_id' is required");
    expect(failure(create, {}).message).toBe("a JSON request body is required");
    expect(failure(create, { body: [] }).message).toBe("the request body must be of type object");
  });
});

describe("a oneOf body names the error of the variant its tag picks", () => {
  const detail = (id: string, body: unknown, params: Record<string, string> = {}) =>
    failure(op(id), { body, params }).message;

  it("names the AGENT variant's own error, not the LLM variant's tag", () => {
    const agent = { type: "AGENT", name: "a" };
    expect(detail("create_integration", { ...agent, config: { endpoint: "x.example/run" } })).toBe(
      "'input_schema' is required in 'config'",
    );
    expect(
      detail("create_integration", {
        ...agent,
        config: { endpoint: "x.example/run", input_schema: {} },
      }),
    ).toBe("'config.endpoint' is malformed");
    const id = encodeId("Integration", "0192f4a0-0000-7000-8000-000000000002");
    expect(
      detail(
        "update_integration",
        { type: "AGENT", description: "d".repeat(5000) },
        { integration_id: id },
      ),
    ).toMatch(/^'description' must be at most \d+ characters$/);
  });

  it("picks a nested variant by its own tag (an LLM config by provider)", () => {
    const llm = (config: object) => ({ type: "LLM", name: "a", config });
    expect(
      detail("create_integration", llm({ provider: "LITELLM", api_key: "", base_url: "http://x" })),
    ).toBe("'config.api_key' must be at least 1 character");
  });

  it("names every variant's value when the tag matches none", () => {
    expect(detail("create_integration", { type: "BOGUS", name: "a" })).toBe(
      "'type' must be one of LLM, AGENT, EVALUATOR",
    );
    expect(
      detail("create_integration", { type: "LLM", name: "a", config: { provider: "NOPE" } }),
    ).toMatch(/^'config\.provider' must be one of OPEN_AI, ANTHROPIC, .*LITELLM/);
  });

  it("keeps the first error when no variant is tagged (the tag itself is missing)", () => {
    expect(detail("create_integration", { name: "a" })).toBe("'type' is required");
  });
});
