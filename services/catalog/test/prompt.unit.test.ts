import { describe, expect, it } from "vitest";
import type { PromptEvent, PromptVersionContent } from "@argus/contracts";
import { promptDecider, type PromptCommand } from "../src/prompts/promptDecider.ts";
import { problem, scenario } from "./decider.ts";

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
  now,
});
const delLabel = (versionId: string, label: string): PromptCommand => ({
  type: "DeletePromptVersionLabel",
  versionId,
  label,
  now,
});
const del: PromptCommand = { type: "DeletePrompt", now };
const update = (description: string | null): PromptCommand => ({
  type: "UpdatePrompt",
  description,
  now,
});

const { given, history } = scenario(promptDecider);
const nothing: PromptEvent[] = [];
const hash = (e: PromptEvent | undefined) => (e?.data as { commit_hash: string }).commit_hash;

describe("prompt decider", () => {
  it("given nothing, CreatePrompt yields PromptCreated then the initial PromptVersionCreated", () => {
    const events = given(nothing).when(create({ description: "d" }));
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
    expect(hash(events[1])).toMatch(/^[0-9a-f]{40}$/);
  });

  it("names: 255 characters pass, 256 and whitespace-only are invalid", () => {
    const c = (name: string) => problem(() => given(nothing).when(create({ name })));
    expect(c("x".repeat(255))).toBe("none");
    expect(c("x".repeat(256))).toBe("invalid-request");
    expect(c("  ")).toBe("invalid-request");
  });

  it("descriptions: 1000 characters pass, 1001 are invalid", () => {
    const d = (n: number) =>
      problem(() => given(nothing).when(create({ description: "d".repeat(n) })));
    expect(d(1000)).toBe("none");
    expect(d(1001)).toBe("invalid-request");
  });

  it("a version needs at least one message and a non-empty commit message", () => {
    const v = (c: PromptVersionContent) =>
      problem(() => given(nothing).when(create({ version: c })));
    expect(v(content({ messages: [] }))).toBe("invalid-request");
    expect(v(content({ commit_message: " " }))).toBe("invalid-request");
  });

  it("the deprecated NONE variable format is stored as F_STRING", () => {
    const events = given(nothing).when(
      create({ version: content({ input_variable_format: "NONE" }) }),
    );
    expect(events[1]!.data).toMatchObject({ input_variable_format: "F_STRING" });
  });

  it("creating an existing prompt is a conflict", () => {
    expect(problem(() => given(history(create())).when(create()))).toBe("resource-conflict");
  });

  it("given a prompt, CreatePromptVersion yields one PromptVersionCreated with a distinct hash", () => {
    const created = history(create());
    const [e, ...rest] = given(created).when(version("v2"));
    expect(rest).toEqual([]);
    expect(e!.type).toBe("PromptVersionCreated");
    expect(hash(e)).not.toBe(hash(created[1]));
  });

  it("given a deleted prompt, every command is not found: never an event after PromptDeleted", () => {
    const deleted = history(create(), del);
    for (const command of [
      version("v2"),
      del,
      update("x"),
      setLabels("v1", ["a"]),
      delLabel("v1", "a"),
    ])
      expect(problem(() => given(deleted).when(command))).toBe("resource-not-found");
  });

  it("UpdatePrompt sets or clears the description", () => {
    expect(given(history(create())).when(update(null))).toEqual([
      {
        type: "PromptUpdated",
        data: { id: "p1", space_id: "s1", description: null, updated_at: at },
      },
    ]);
  });

  it("setting labels on a version sets the new ones and moves those held by a sibling", () => {
    const before = history(create(), version("v2"), setLabels("v1", ["production", "staging"]));
    const on = { prompt_id: "p1", space_id: "s1", version_id: "v2" };
    expect(given(before).when(setLabels("v2", ["production", "canary"]))).toEqual([
      {
        type: "PromptLabelSet",
        data: { ...on, label: "production", previous_version_id: "v1", set_at: at },
      },
      {
        type: "PromptLabelSet",
        data: { ...on, label: "canary", previous_version_id: null, set_at: at },
      },
    ]);
    // The fold knows where each label is now: staging stays on v1, production moved to v2.
    const after = [...before, ...given(before).when(setLabels("v2", ["production", "canary"]))];
    expect(given(after).when(setLabels("v1", ["staging"]))).toEqual([]);
    expect(problem(() => given(after).when(delLabel("v1", "production")))).toBe(
      "resource-not-found",
    );
  });

  it("setting labels removes this version's labels left out, and repeating it is a no-op", () => {
    const labelled = history(create(), setLabels("v1", ["a", "b"]));
    const labelsOf = (events: readonly PromptEvent[]) =>
      events.map((e) => [e.type, (e.data as { label: string }).label]);
    expect(labelsOf(given(labelled).when(setLabels("v1", ["b"])))).toEqual([
      ["PromptLabelDeleted", "a"],
    ]);
    expect(given(labelled).when(setLabels("v1", ["a", "b"]))).toEqual([]);
    expect(
      given(labelled)
        .when(setLabels("v1", []))
        .map((e) => e.type),
    ).toEqual(["PromptLabelDeleted", "PromptLabelDeleted"]);
  });

  it("labels: 100 per version pass, 101 and empty names are invalid", () => {
    const created = history(create());
    const many = (n: number) => Array.from({ length: n }, (_, i) => `l${i}`);
    expect(problem(() => given(created).when(setLabels("v1", many(100))))).toBe("none");
    expect(problem(() => given(created).when(setLabels("v1", many(101))))).toBe("invalid-request");
    expect(problem(() => given(created).when(setLabels("v1", [" "])))).toBe("invalid-request");
  });

  it("deleting a label needs it on that version", () => {
    const labelled = history(create(), version("v2"), setLabels("v1", ["production"]));
    expect(given(labelled).when(delLabel("v1", "production"))).toEqual([
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
    expect(problem(() => given(labelled).when(delLabel("v2", "production")))).toBe(
      "resource-not-found",
    );
    expect(problem(() => given(labelled).when(delLabel("v1", "Production")))).toBe(
      "resource-not-found",
    );
  });
});
