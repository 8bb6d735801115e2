import { describe, expect, it } from "vitest";
import type { EvaluatorEvent } from "@argus/contracts";
import { evaluatorDecider, type EvaluatorCommand } from "../src/evaluators/evaluatorDecider.ts";
import type { EvaluatorVersionContent } from "../src/evaluators/evaluatorConfigRules.ts";
import { problem, scenario } from "./decider.ts";

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

const { given, history } = scenario(evaluatorDecider);
const nothing: EvaluatorEvent[] = [];
const decideNew = (c: EvaluatorCommand) => given(nothing).when(c);
const del: EvaluatorCommand = { type: "DeleteEvaluator", now };
const upd = (
  name: string | undefined,
  description: string | null | undefined,
): EvaluatorCommand => ({
  type: "UpdateEvaluator",
  name,
  description,
  now,
});
const newVersion = (version: EvaluatorVersionContent): EvaluatorCommand => ({
  type: "CreateEvaluatorVersion",
  versionId: "v2",
  version,
  userId: "u1",
  now,
});

describe("evaluator decider", () => {
  it("given nothing, CreateEvaluator yields EvaluatorCreated and the first version with defaults", () => {
    const events = decideNew(create());
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
    const events = decideNew(
      create({ version: template({ direction: "MINIMIZE", data_granularity: "TRACE" }) }),
    );
    expect(events[1]!.data).toMatchObject({
      config: { direction: "MINIMIZE", data_granularity: "TRACE" },
    });
  });

  it("only TEMPLATE and CODE can be created, and the config must match the type", () => {
    expect(problem(() => decideNew(create({ evaluatorType: "HARNESS" })))).toBe("invalid-request");
    expect(problem(() => decideNew(create({ version: code() })))).toBe("invalid-request");
    expect(problem(() => decideNew(create({ evaluatorType: "CODE", version: code() })))).toBe(
      "none",
    );
  });

  it("config rules: column-name pattern, template and choices required, code kinds", () => {
    const bad = (v: EvaluatorVersionContent, type = "TEMPLATE") =>
      problem(() => decideNew(create({ evaluatorType: type, version: v })));
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
    expect(problem(() => decideNew(create({ name: "n".repeat(255) })))).toBe("none");
    expect(problem(() => decideNew(create({ name: "n".repeat(256) })))).toBe("invalid-request");
    expect(problem(() => decideNew(create({ description: "d".repeat(1000) })))).toBe("none");
    expect(problem(() => decideNew(create({ description: "d".repeat(1001) })))).toBe(
      "invalid-request",
    );
  });

  it("a new version of a live evaluator must match its type", () => {
    const created = history(create());
    expect(
      given(created)
        .when(newVersion(template()))
        .map((e) => e.type),
    ).toEqual(["EvaluatorVersionCreated"]);
    expect(problem(() => given(created).when(newVersion(code())))).toBe("invalid-request");
  });

  it("update needs a field, keeps what is omitted, clears a null description", () => {
    const created = history(create({ description: "d" }));
    expect(problem(() => given(created).when(upd(undefined, undefined)))).toBe("invalid-request");
    expect(given(created).when(upd("Renamed", undefined))[0]!.data).toEqual({
      id: "e1",
      space_id: "s1",
      name: "Renamed",
      description: "d",
      updated_at: at,
    });
    expect(given(created).when(upd(undefined, null))[0]!.data).toMatchObject({
      name: "Hallucination",
      description: null,
    });
  });

  it("an update folds into the state the next update keeps", () => {
    const renamed = history(create({ description: "d" }), upd("Renamed", undefined));
    expect(given(renamed).when(upd(undefined, "e"))[0]!.data).toMatchObject({
      name: "Renamed",
      description: "e",
    });
  });

  it("given a deleted evaluator: update → 404, delete → 404, new version → 404", () => {
    const deleted = history(create(), del);
    expect(problem(() => given(deleted).when(upd("x", undefined)))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(del))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(newVersion(template())))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(create()))).toBe("resource-conflict");
  });
});

describe("DeleteEvaluatorVersions", () => {
  const delVersions = (...versionIds: string[]): EvaluatorCommand => ({
    type: "DeleteEvaluatorVersions",
    versionIds,
    now,
  });
  const threeVersions = (): EvaluatorCommand[] => [
    create(),
    { ...newVersion(template()), versionId: "v2" } as EvaluatorCommand,
    { ...newVersion(template()), versionId: "v3" } as EvaluatorCommand,
  ];

  it("deletes the evaluator's versions among those named, once each, ignoring others", () => {
    const [ev, ...rest] = given(history(...threeVersions())).when(
      delVersions("v3", "v3", "elsewhere", "v1"),
    );
    expect(rest).toEqual([]);
    expect(ev).toEqual({
      type: "EvaluatorVersionsDeleted",
      data: { evaluator_id: "e1", space_id: "s1", version_ids: ["v1", "v3"], deleted_at: at },
    });
  });

  it("none of its versions named: no event; deleted ones fold away", () => {
    expect(given(history(...threeVersions())).when(delVersions("elsewhere"))).toEqual([]);
    const after = history(...threeVersions(), delVersions("v2"));
    expect(given(after).when(delVersions("v2"))).toEqual([]);
  });

  it("every remaining version is 409; 0 or more than 100 ids 400; a deleted evaluator 404", () => {
    const after = history(...threeVersions(), delVersions("v2"));
    expect(problem(() => given(after).when(delVersions("v1", "v3")))).toBe("resource-conflict");
    expect(problem(() => given(after).when(delVersions()))).toBe("invalid-request");
    const many = Array.from({ length: 101 }, () => "v1");
    expect(problem(() => given(after).when(delVersions(...many)))).toBe("invalid-request");
    expect(problem(() => given(after).when(delVersions(...many.slice(1))))).toBe("none");
    expect(problem(() => given(history(create(), del)).when(delVersions("v1")))).toBe(
      "resource-not-found",
    );
  });
});
