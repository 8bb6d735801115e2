import { describe, expect, it } from "vitest";
import type { IntegrationEvent } from "@argus/contracts";
import {
  integrationDecider,
  type IntegrationCommand,
  type IntegrationInput,
} from "../src/integrations/integrationDecider.ts";
import { problem, problemDetail, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const later = new Date("2026-01-02T04:00:00.000Z");
const schema = {
  type: "object",
  properties: { question: { type: "string" }, temperature: { type: "number" } },
  required: ["question"],
};
const input = (over: Partial<IntegrationInput> = {}): IntegrationInput => ({
  type: "AGENT",
  name: "support bot",
  description: null,
  endpoint: "https://agent.example.com/run",
  input_schema: schema,
  headers: { authorization: "Bearer secret-value" },
  request_presets: [],
  scopings: [],
  ...over,
});
const create = (over: Partial<IntegrationInput> = {}, presetIds = ["p1", "p2", "p3"]) =>
  ({
    type: "CreateIntegration",
    id: "i1",
    accountId: "a1",
    input: input(over),
    userId: "u1",
    presetIds,
    now,
  }) satisfies IntegrationCommand;
const update = (changes: Partial<IntegrationInput>, presetIds = ["n1", "n2"]) =>
  ({ type: "UpdateIntegration", changes, presetIds, now: later }) satisfies IntegrationCommand;
const del = (usedByEvaluators = 0) =>
  ({ type: "DeleteIntegration", usedByEvaluators, now }) satisfies IntegrationCommand;

const { given, history } = scenario(integrationDecider);
const nothing: IntegrationEvent[] = [];
const data = (events: IntegrationEvent[]) => events[0]!.data as Record<string, unknown>;

describe("integration decider (AGENT and EVALUATOR)", () => {
  it("header values never enter an event: only their names", () => {
    const events = given(nothing).when(create());
    expect(data(events)).toMatchObject({ header_names: ["authorization"], type: "AGENT" });
    expect(JSON.stringify(events)).not.toContain("secret-value");
  });

  it("presets: checked against the schema without `required`, unique by name, ids fresh", () => {
    const presets = [
      { name: "short", description: null, config: { temperature: 0.2 } },
      { name: "warm", description: "d", config: { question: "q", temperature: 1 } },
    ];
    expect(data(given(nothing).when(create({ request_presets: presets }))).request_presets).toEqual(
      [
        { id: "p1", ...presets[0], created_at: now.toISOString(), updated_at: now.toISOString() },
        { id: "p2", ...presets[1], created_at: now.toISOString(), updated_at: now.toISOString() },
      ],
    );
    const bad = { name: "bad", description: null, config: { temperature: "hot" } };
    expect(problemDetail(() => given(nothing).when(create({ request_presets: [bad] })))).toMatch(
      /preset bad: config does not match/,
    );
    expect(
      problem(() => given(nothing).when(create({ request_presets: [presets[0]!, presets[0]!] }))),
    ).toBe("unprocessable-entity");
    expect(
      problem(() =>
        given(nothing).when(create({ type: "EVALUATOR", request_presets: [presets[0]!] })),
      ),
    ).toBe("invalid-request");
  });

  it("an update replaces presets by name: kept names keep id and times unless changed", () => {
    const start = history(
      create({
        request_presets: [
          { name: "a", description: null, config: {} },
          { name: "b", description: null, config: {} },
        ],
      }),
    );
    const events = given(start).when(
      update({
        request_presets: [
          { name: "b", description: null, config: {} },
          { name: "a", description: "changed", config: {} },
          { name: "c", description: null, config: {} },
        ],
      }),
    );
    const presets = data(events).request_presets as Record<string, unknown>[];
    expect(presets.map((p) => [p.id, p.name, p.updated_at])).toEqual([
      ["p2", "b", now.toISOString()],
      ["p1", "a", later.toISOString()],
      ["n1", "c", later.toISOString()],
    ]);
    // Headers left out keep their names; null clears them; the type never changes.
    expect(data(given(start).when(update({ name: "x" }))).header_names).toEqual(["authorization"]);
    expect(data(given(start).when(update({ headers: null }))).header_names).toEqual([]);
    expect(problem(() => given(start).when(update({ type: "EVALUATOR" })))).toBe(
      "unprocessable-entity",
    );
  });

  it("an EVALUATOR's schema is a root object without arize_metadata, and a valid schema", () => {
    const evaluator = (input_schema: Record<string, unknown>) =>
      problem(() => given(nothing).when(create({ type: "EVALUATOR", input_schema })));
    expect(evaluator({ type: "object" })).toBe("none");
    expect(evaluator({ type: "string" })).toBe("unprocessable-entity");
    expect(evaluator({ type: "object", properties: { arize_metadata: {} } })).toBe(
      "unprocessable-entity",
    );
    expect(evaluator({ type: "object", properties: { a: { type: 12 } } })).toBe(
      "unprocessable-entity",
    );
    // An AGENT's schema may be any valid schema.
    expect(problem(() => given(nothing).when(create({ input_schema: { type: "array" } })))).toBe(
      "none",
    );
  });

  it("limits: name, description, endpoint, headers and schema size at their edges", () => {
    const c = (over: Partial<IntegrationInput>) => problem(() => given(nothing).when(create(over)));
    expect(c({ name: "n".repeat(255) })).toBe("none");
    expect(c({ name: "n".repeat(256) })).toBe("invalid-request");
    expect(c({ name: " " })).toBe("invalid-request");
    expect(c({ description: "d".repeat(1024) })).toBe("none");
    expect(c({ description: "d".repeat(1025) })).toBe("invalid-request");
    const url = (n: number) => `https://a.example.com/${"p".repeat(n - 22)}`;
    expect(c({ endpoint: url(2048) })).toBe("none");
    expect(c({ endpoint: url(2049) })).toBe("invalid-request");
    const headers = (n: number) => ({ h: "v".repeat(n - 8) });
    expect(c({ headers: headers(8175) })).toBe("none");
    expect(c({ headers: headers(8176) })).toBe("invalid-request");
    const frame = JSON.stringify({ type: "object", description: "" }).length;
    const sized = (n: number) => ({ type: "object", description: "s".repeat(n - frame) });
    expect(c({ input_schema: sized(65536) })).toBe("none");
    expect(c({ input_schema: sized(65537) })).toBe("invalid-request");
  });

  it("delete: refused while REMOTE evaluators use it; a deleted one is 404", () => {
    const created = history(create());
    expect(problem(() => given(created).when(del(2)))).toBe("resource-conflict");
    expect(given(created).when(del())[0]!.type).toBe("IntegrationDeleted");
    expect(problem(() => given(history(create(), del())).when(del()))).toBe("resource-not-found");
  });

  it("a deleted space: its scoping removed, or the integration deleted when none remain", () => {
    const doomed = { organization_id: "o", space_id: "doomed" };
    const kept = { organization_id: "o", space_id: "kept" };
    const leave = { type: "RemoveSpaceScopings", spaceId: "doomed", now } as const;
    expect(data(given(history(create({ scopings: [doomed, kept] }))).when(leave)).scopings).toEqual(
      [kept],
    );
    expect(given(history(create({ scopings: [doomed] }))).when(leave)[0]!.type).toBe(
      "IntegrationDeleted",
    );
    expect(given(history(create({ scopings: [kept] }))).when(leave)).toEqual([]);
  });
});
