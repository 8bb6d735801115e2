import { describe, expect, it } from "vitest";
import { ItemError } from "../src/worker/managedEvaluators.ts";
import {
  agentOutput,
  castTo,
  endpointOf,
  renderAgentBody,
  schemaVariables,
} from "../src/worker/endpoints.ts";

const endpoint = (schema: Record<string, unknown>) =>
  endpointOf({
    id: "i",
    type: "AGENT",
    endpoint: "https://agent.example.com",
    inputSchemaJson: JSON.stringify(schema),
  });
const error = (f: () => unknown) => {
  try {
    f();
    return "none";
  } catch (e) {
    return e instanceof ItemError ? e.message : `not an item error: ${String(e)}`;
  }
};

describe("values cast to the schema's types", () => {
  it.each([
    ["12", { type: "integer" }, 12],
    [12, { type: "integer" }, 12],
    ["1.5", { type: "number" }, 1.5],
    ["true", { type: "boolean" }, true],
    ['{"a":1}', { type: "object" }, { a: 1 }],
    ["[1]", { type: "array" }, [1]],
    [3, { type: "string" }, "3"],
    [{ a: 1 }, { type: "string" }, '{"a":1}'],
    [{ a: 1 }, {}, { a: 1 }],
    [null, { type: "integer" }, null],
    [undefined, { type: "integer" }, null],
  ])("%j as %j is %j", (value, schema, want) => {
    expect(castTo(value, schema, "c")).toEqual(want);
  });

  it.each([
    ["1.5", { type: "integer" }],
    ["", { type: "number" }],
    ["yes", { type: "boolean" }],
    ["[1]", { type: "object" }],
    ["{", { type: "array" }],
  ])("%j is no %j: the item's error names the column, value and type", (value, schema) => {
    expect(error(() => castTo(value, schema, "column n"))).toBe(
      `column n: ${JSON.stringify(value)} is not a valid ${schema.type}`,
    );
  });
});

describe("an AGENT_CALL body", () => {
  const agent = endpoint({
    type: "object",
    properties: {
      q: { type: "string" },
      n: { type: "integer" },
      nested: { type: "object", properties: { flag: { type: "boolean" } } },
    },
    required: ["q"],
    additionalProperties: false,
  });
  it("whole placeholders are cast where the schema says, embedded ones interpolated", () => {
    expect(
      renderAgentBody(
        agent,
        { q: "Q: {{input}} ({{dataset.n}})", n: "{{n}}", nested: { flag: "{{f}}" } },
        { input: "hi", n: "7", f: "false" },
      ),
    ).toEqual({ q: "Q: hi (7)", n: 7, nested: { flag: false } });
  });
  it("a missing column is null where whole, empty where embedded; the schema is enforced", () => {
    expect(error(() => renderAgentBody(agent, { q: "{{missing}}" }, {}))).toMatch(
      /does not match the input schema/,
    );
    expect(renderAgentBody(agent, { q: "[{{missing}}]" }, {})).toEqual({ q: "[]" });
    expect(error(() => renderAgentBody(agent, { q: "x", extra: 1 }, {}))).toMatch(
      /does not match the input schema/,
    );
  });
  it("an answer that is a JSON string is unquoted; any other answer is kept as text", () => {
    expect(agentOutput('"hello"')).toBe("hello");
    expect(agentOutput('{"a":1}')).toBe('{"a":1}');
    expect(agentOutput("plain")).toBe("plain");
  });
});

describe("a REMOTE evaluator's variables", () => {
  it("are the schema's required fields; the others are read when present; never arize_metadata", () => {
    expect(
      schemaVariables(
        endpoint({
          type: "object",
          properties: { output: {}, expected: {}, arize_metadata: {} },
          required: ["output"],
        }),
      ),
    ).toEqual({ required: ["output"], optional: ["expected"] });
  });
});
