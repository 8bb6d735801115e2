import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  decidePrompt,
  evolvePrompt,
  initialPromptState,
  promptStateOf,
  type PromptCommand,
  type PromptEvent,
  type PromptState,
  type PromptVersionContent,
} from "../src/domain/prompt.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
const content = (over: Partial<PromptVersionContent> = {}): PromptVersionContent => ({
  commit_message: "first",
  input_variable_format: "F_STRING",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
  invocation_params: null,
  provider_params: null,
  ...over,
});
const create = (over: Partial<Extract<PromptCommand, { type: "CreatePrompt" }>> = {}) =>
  ({
    type: "CreatePrompt",
    id: "p1",
    versionId: "v1",
    accountId: "a1",
    spaceId: "s1",
    name: "greeter",
    description: null,
    version: content(),
    userId: "u1",
    now,
    ...over,
  }) satisfies PromptCommand;

const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};

/** given these commands already decided, the state they leave */
function given(...commands: PromptCommand[]): PromptState {
  return commands.reduce((s, c) => decidePrompt(c, s).reduce(evolvePrompt, s), initialPromptState);
}
const version = (versionId: string): PromptCommand => ({
  type: "CreatePromptVersion",
  versionId,
  version: content({ commit_message: versionId }),
  userId: "u1",
  now,
});
const setLabels = (versionId: string, labels: string[]): PromptCommand => ({
  type: "SetPromptVersionLabels",
  versionId,
  labels,
  userId: "u1",
  now,
});

describe("prompt decider", () => {
  it("given nothing, CreatePrompt yields PromptCreated then the initial PromptVersionCreated", () => {
    const events = decidePrompt(create({ description: "d" }), initialPromptState);
    expect(events.map((e) => e.type)).toEqual(["PromptCreated", "PromptVersionCreated"]);
    expect(events[0]!.data).toEqual({
      id: "p1",
      account_id: "a1",
      space_id: "s1",
      name: "greeter",
      description: "d",
      created_by_user_id: "u1",
      created_at: at,
    });
    expect(events[1]!.data).toMatchObject({
      id: "v1",
      prompt_id: "p1",
      space_id: "s1",
      commit_message: "first",
      provider: "OPEN_AI",
      created_at: at,
    });
    expect((events[1]!.data as { commit_hash: string }).commit_hash).toMatch(/^[0-9a-f]{40}$/);
  });

  it("names: 255 characters pass, 256 and whitespace-only are invalid", () => {
    expect(problem(() => decidePrompt(create({ name: "x".repeat(255) }), initialPromptState))).toBe(
      "none",
    );
    expect(problem(() => decidePrompt(create({ name: "x".repeat(256) }), initialPromptState))).toBe(
      "invalid-request",
    );
    expect(problem(() => decidePrompt(create({ name: "  " }), initialPromptState))).toBe(
      "invalid-request",
    );
  });

  it("descriptions: 1000 characters pass, 1001 are invalid", () => {
    const d = (n: number) => create({ description: "d".repeat(n) });
    expect(problem(() => decidePrompt(d(1000), initialPromptState))).toBe("none");
    expect(problem(() => decidePrompt(d(1001), initialPromptState))).toBe("invalid-request");
  });

  it("a version needs at least one message and a non-empty commit message", () => {
    expect(
      problem(() =>
        decidePrompt(create({ version: content({ messages: [] }) }), initialPromptState),
      ),
    ).toBe("invalid-request");
    expect(
      problem(() =>
        decidePrompt(create({ version: content({ commit_message: " " }) }), initialPromptState),
      ),
    ).toBe("invalid-request");
  });

  it("the deprecated NONE variable format is stored as F_STRING", () => {
    const events = decidePrompt(
      create({ version: content({ input_variable_format: "NONE" }) }),
      initialPromptState,
    );
    expect(events[1]!.data).toMatchObject({ input_variable_format: "F_STRING" });
  });

  it("creating an existing prompt is a conflict", () => {
    expect(problem(() => decidePrompt(create(), given(create())))).toBe("resource-conflict");
  });

  it("given a prompt, CreatePromptVersion yields one PromptVersionCreated with a distinct hash", () => {
    const state = given(create());
    const [e] = decidePrompt(version("v2"), state) as [PromptEvent];
    expect(e.type).toBe("PromptVersionCreated");
    const first = decidePrompt(create(), initialPromptState)[1]!;
    expect((e.data as { commit_hash: string }).commit_hash).not.toBe(
      (first.data as { commit_hash: string }).commit_hash,
    );
  });

  it("given a deleted prompt, every command is not found", () => {
    const deleted = given(create(), { type: "DeletePrompt", userId: "u1", now });
    expect(problem(() => decidePrompt(version("v2"), deleted))).toBe("resource-not-found");
    expect(problem(() => decidePrompt({ type: "DeletePrompt", userId: "u1", now }, deleted))).toBe(
      "resource-not-found",
    );
    expect(
      problem(() =>
        decidePrompt({ type: "UpdatePrompt", description: "x", userId: "u1", now }, deleted),
      ),
    ).toBe("resource-not-found");
  });

  it("UpdatePrompt sets or clears the description", () => {
    const state = given(create());
    expect(
      decidePrompt({ type: "UpdatePrompt", description: null, userId: "u1", now }, state),
    ).toEqual([
      {
        type: "PromptUpdated",
        data: { id: "p1", space_id: "s1", description: null, updated_at: at },
      },
    ]);
  });

  it("setting labels on a version sets the new ones and moves those held by a sibling", () => {
    const state = given(create(), version("v2"), setLabels("v1", ["production", "staging"]));
    expect(state.labels).toEqual({ production: "v1", staging: "v1" });
    const events = decidePrompt(setLabels("v2", ["production", "canary"]), state);
    expect(events).toEqual([
      {
        type: "PromptLabelSet",
        data: {
          prompt_id: "p1",
          space_id: "s1",
          version_id: "v2",
          label: "production",
          previous_version_id: "v1",
          set_at: at,
        },
      },
      {
        type: "PromptLabelSet",
        data: {
          prompt_id: "p1",
          space_id: "s1",
          version_id: "v2",
          label: "canary",
          previous_version_id: null,
          set_at: at,
        },
      },
    ]);
    expect(promptStateOf([]).labels).toEqual({});
  });

  it("setting labels removes this version's labels left out, and repeating it is a no-op", () => {
    const state = given(create(), setLabels("v1", ["a", "b"]));
    const events = decidePrompt(setLabels("v1", ["b"]), state);
    expect(events.map((e) => [e.type, (e.data as { label: string }).label])).toEqual([
      ["PromptLabelDeleted", "a"],
    ]);
    expect(decidePrompt(setLabels("v1", ["a", "b"]), state)).toEqual([]);
    expect(decidePrompt(setLabels("v1", []), state).map((e) => e.type)).toEqual([
      "PromptLabelDeleted",
      "PromptLabelDeleted",
    ]);
  });

  it("labels: 100 per version pass, 101 and empty names are invalid; unknown versions are not found", () => {
    const state = given(create());
    const many = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);
    expect(problem(() => decidePrompt(setLabels("v1", many(100)), state))).toBe("none");
    expect(problem(() => decidePrompt(setLabels("v1", many(101)), state))).toBe("invalid-request");
    expect(problem(() => decidePrompt(setLabels("v1", [" "]), state))).toBe("invalid-request");
    expect(problem(() => decidePrompt(setLabels("v9", ["a"]), state))).toBe("resource-not-found");
  });

  it("deleting a label needs it on that version", () => {
    const state = given(create(), version("v2"), setLabels("v1", ["production"]));
    const del = (versionId: string, label: string): PromptCommand => ({
      type: "DeletePromptVersionLabel",
      versionId,
      label,
      userId: "u1",
      now,
    });
    expect(decidePrompt(del("v1", "production"), state)).toEqual([
      {
        type: "PromptLabelDeleted",
        data: {
          prompt_id: "p1",
          space_id: "s1",
          version_id: "v1",
          label: "production",
          deleted_at: at,
        },
      },
    ]);
    expect(problem(() => decidePrompt(del("v2", "production"), state))).toBe("resource-not-found");
    expect(problem(() => decidePrompt(del("v1", "Production"), state))).toBe("resource-not-found");
  });
});
