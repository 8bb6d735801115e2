import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  decideEvaluator,
  evolveEvaluator,
  initialEvaluatorState,
  type EvaluatorCommand,
  type EvaluatorState,
  type EvaluatorVersionContent,
} from "../src/domain/evaluator.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
const template = (over: Record<string, unknown> = {}): EvaluatorVersionContent => ({
  commit_message: "initial",
  config_kind: "TEMPLATE",
  config: {
    name: "hallucination",
    template: "Is {output} supported by {input}?",
    include_explanations: true,
    use_function_calling_if_available: true,
    classification_choices: { factual: 1, hallucinated: 0 },
    llm_config: {
      ai_integration_id: "x",
      model_name: "gpt-4o",
      invocation_parameters: {},
      provider_parameters: {},
    },
    ...over,
  },
});
const code = (over: Record<string, unknown> = {}): EvaluatorVersionContent => ({
  commit_message: "code",
  config_kind: "CODE",
  config: { type: "CUSTOM", name: "my_eval", code: "class E: ...", variables: ["input"], ...over },
});
const create = (over: Partial<Extract<EvaluatorCommand, { type: "CreateEvaluator" }>> = {}) =>
  ({
    type: "CreateEvaluator",
    id: "e1",
    versionId: "v1",
    accountId: "a1",
    spaceId: "s1",
    name: "Hallucination",
    description: null,
    evaluatorType: "TEMPLATE",
    version: template(),
    userId: "u1",
    now,
    ...over,
  }) satisfies EvaluatorCommand;

const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};
const given = (...commands: EvaluatorCommand[]): EvaluatorState =>
  commands.reduce(
    (s, c) => decideEvaluator(c, s).reduce(evolveEvaluator, s),
    initialEvaluatorState,
  );

describe("evaluator decider", () => {
  it("given nothing, CreateEvaluator yields EvaluatorCreated and the first version with defaults", () => {
    const events = decideEvaluator(create(), initialEvaluatorState);
    expect(events.map((e) => e.type)).toEqual(["EvaluatorCreated", "EvaluatorVersionCreated"]);
    expect(events[0]!.data).toEqual({
      id: "e1",
      account_id: "a1",
      space_id: "s1",
      name: "Hallucination",
      description: null,
      evaluator_type: "TEMPLATE",
      created_by_user_id: "u1",
      created_at: at,
    });
    expect(events[1]!.data).toMatchObject({
      id: "v1",
      evaluator_id: "e1",
      evaluator_type: "TEMPLATE",
      config: { use_structured_output: true, direction: "MAXIMIZE", data_granularity: "SPAN" },
    });
  });

  it("explicit template settings win over the defaults", () => {
    const events = decideEvaluator(
      create({ version: template({ direction: "MINIMIZE", data_granularity: "TRACE" }) }),
      initialEvaluatorState,
    );
    expect(events[1]!.data).toMatchObject({
      config: { direction: "MINIMIZE", data_granularity: "TRACE" },
    });
  });

  it("only TEMPLATE and CODE can be created, and the config must match the type", () => {
    expect(
      problem(() => decideEvaluator(create({ evaluatorType: "HARNESS" }), initialEvaluatorState)),
    ).toBe("invalid-request");
    expect(problem(() => decideEvaluator(create({ version: code() }), initialEvaluatorState))).toBe(
      "invalid-request",
    );
    expect(
      problem(() =>
        decideEvaluator(create({ evaluatorType: "CODE", version: code() }), initialEvaluatorState),
      ),
    ).toBe("none");
  });

  it("config rules: column-name pattern, template and choices required, code kinds", () => {
    const bad = (v: EvaluatorVersionContent, type = "TEMPLATE") =>
      problem(() =>
        decideEvaluator(create({ evaluatorType: type, version: v }), initialEvaluatorState),
      );
    expect(bad(template({ name: "bad/name" }))).toBe("invalid-request");
    expect(bad(template({ name: "ok name-(1)&_" }))).toBe("none");
    expect(bad(template({ template: " " }))).toBe("invalid-request");
    expect(bad(template({ classification_choices: {} }))).toBe("invalid-request");
    expect(bad(code({ code: "" }), "CODE")).toBe("invalid-request");
    expect(bad(code({ type: "OTHER" }), "CODE")).toBe("invalid-request");
    expect(bad(code({ type: "MANAGED", managed_evaluator: "EXACT_MATCH" }), "CODE")).toBe("none");
    expect(bad(code({ type: "MANAGED" }), "CODE")).toBe("invalid-request");
  });

  it("names: 255 pass, 256 invalid; descriptions 1000 pass, 1001 invalid", () => {
    expect(
      problem(() => decideEvaluator(create({ name: "n".repeat(255) }), initialEvaluatorState)),
    ).toBe("none");
    expect(
      problem(() => decideEvaluator(create({ name: "n".repeat(256) }), initialEvaluatorState)),
    ).toBe("invalid-request");
    expect(
      problem(() =>
        decideEvaluator(create({ description: "d".repeat(1000) }), initialEvaluatorState),
      ),
    ).toBe("none");
    expect(
      problem(() =>
        decideEvaluator(create({ description: "d".repeat(1001) }), initialEvaluatorState),
      ),
    ).toBe("invalid-request");
  });

  it("a new version of a live evaluator must match its type", () => {
    const state = given(create());
    const v = (version: EvaluatorVersionContent): EvaluatorCommand => ({
      type: "CreateEvaluatorVersion",
      versionId: "v2",
      version,
      userId: "u1",
      now,
    });
    expect(decideEvaluator(v(template()), state).map((e) => e.type)).toEqual([
      "EvaluatorVersionCreated",
    ]);
    expect(problem(() => decideEvaluator(v(code()), state))).toBe("invalid-request");
  });

  it("update needs a field, keeps what is omitted, clears a null description", () => {
    const state = given(create({ description: "d" }));
    const upd = (
      name: string | undefined,
      description: string | null | undefined,
    ): EvaluatorCommand => ({
      type: "UpdateEvaluator",
      name,
      description,
      userId: "u1",
      now,
    });
    expect(problem(() => decideEvaluator(upd(undefined, undefined), state))).toBe(
      "invalid-request",
    );
    expect(decideEvaluator(upd("Renamed", undefined), state)[0]!.data).toEqual({
      id: "e1",
      space_id: "s1",
      name: "Renamed",
      description: "d",
      updated_at: at,
    });
    expect(decideEvaluator(upd(undefined, null), state)[0]!.data).toMatchObject({
      name: "Hallucination",
      description: null,
    });
  });

  it("given a deleted evaluator, commands are not found", () => {
    const deleted = given(create(), { type: "DeleteEvaluator", userId: "u1", now });
    expect(
      problem(() => decideEvaluator({ type: "DeleteEvaluator", userId: "u1", now }, deleted)),
    ).toBe("resource-not-found");
    expect(problem(() => decideEvaluator(create(), deleted))).toBe("resource-conflict");
  });
});
