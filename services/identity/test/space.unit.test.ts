import { describe, expect, it } from "vitest";
import { fold } from "@argus/eventstore";
import type { SpaceEvent } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import { spaceDecider, type SpaceCommand } from "../src/spaces/spaceDecider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
type Create = Extract<SpaceCommand, { type: "CreateSpace" }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: "CreateSpace",
  id: "s1",
  accountId: "a1",
  organizationId: "o1",
  name: "Research",
  description: "",
  isPrivate: false,
  now,
  ...over,
});

/** Given these events, when this command: the events it decides. */
const given = (history: readonly SpaceEvent[]) => ({
  when: (command: SpaceCommand) => spaceDecider.decide(command, fold(spaceDecider, history)),
});

const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
  }
  return "none";
};

const created = given([]).when(create());
const deleted = [...created, ...given(created).when({ type: "DeleteSpace", now })];

describe("space decider", () => {
  it("given no space, CreateSpace yields SpaceCreated with the command's values", () => {
    expect(given([]).when(create({ description: "d", isPrivate: true }))).toEqual([
      {
        type: "SpaceCreated",
        data: {
          id: "s1",
          account_id: "a1",
          organization_id: "o1",
          name: "Research",
          description: "d",
          is_private: true,
          created_at: now.toISOString(),
        },
      },
    ]);
  });

  it("names: 255 characters pass, 256 and whitespace-only are invalid", () => {
    expect(given([]).when(create({ name: "n".repeat(255) }))).toHaveLength(1);
    expect(problem(() => given([]).when(create({ name: "n".repeat(256) })))).toBe(
      "invalid-request",
    );
    expect(problem(() => given([]).when(create({ name: "   " })))).toBe("invalid-request");
  });

  it("names count characters, not UTF-16 units", () => {
    expect(given([]).when(create({ name: "😀".repeat(255) }))).toHaveLength(1);
  });

  it("descriptions: 1000 characters pass, 1001 are invalid", () => {
    expect(given([]).when(create({ description: "d".repeat(1000) }))).toHaveLength(1);
    expect(problem(() => given([]).when(create({ description: "d".repeat(1001) })))).toBe(
      "invalid-request",
    );
  });

  it("given a created space, creating it again conflicts", () => {
    expect(problem(() => given(created).when(create()))).toBe("resource-conflict");
  });

  it("update: a field is required, limits hold, unchanged is a no-op", () => {
    const update = (c: Omit<Extract<SpaceCommand, { type: "UpdateSpace" }>, "type" | "now">) =>
      given(created).when({ type: "UpdateSpace", now, ...c });
    expect(problem(() => update({}))).toBe("invalid-request");
    expect(problem(() => update({ name: "x".repeat(256) }))).toBe("invalid-request");
    expect(problem(() => update({ description: "d".repeat(1001) }))).toBe("invalid-request");
    expect(update({ name: "Research", isPrivate: false })).toEqual([]);
    expect(update({ isPrivate: true })[0]!.data).toMatchObject({
      name: "Research",
      is_private: true,
    });
  });

  it("an update folds into the state the next decision sees", () => {
    const renamed = [
      ...created,
      ...given(created).when({ type: "UpdateSpace", name: "Renamed", now }),
    ];
    expect(given(renamed).when({ type: "UpdateSpace", name: "Renamed", now })).toEqual([]);
  });

  const settingsOf = (events: readonly SpaceEvent[]) =>
    (events[0]!.data as { settings?: Record<string, unknown> }).settings;

  it("settings (update_space): set, kept by later updates, cleared by null, unchanged a no-op", () => {
    const llm = { integration_id: "i1", model_name: "gpt-4o" };
    const set = given(created).when({
      type: "UpdateSpace",
      settings: { ml_models_enabled: true, default_llm_integration: llm },
      now,
    });
    expect(set[0]!.data).toMatchObject({
      settings: { ml_models_enabled: true, default_llm_integration: llm },
    });
    const history = [...created, ...set];
    const same = { type: "UpdateSpace", settings: { ml_models_enabled: true }, now } as const;
    expect(given(history).when(same)).toEqual([]);
    const renamed = given(history).when({ type: "UpdateSpace", name: "Renamed", now });
    expect(settingsOf(renamed)).toEqual({
      ml_models_enabled: true,
      default_llm_integration: llm,
    });
    const cleared = given(history).when({
      type: "UpdateSpace",
      settings: { default_llm_integration: null },
      now,
    });
    expect(settingsOf(cleared)).toEqual({
      ml_models_enabled: true,
      default_llm_integration: null,
    });
  });

  it("delete says which organization and account the space belonged to", () => {
    expect(deleted.at(-1)).toEqual({
      type: "SpaceDeleted",
      data: { id: "s1", account_id: "a1", organization_id: "o1", deleted_at: now.toISOString() },
    });
  });

  it("given a deleted space, neither an update nor a second delete is decided (404)", () => {
    expect(problem(() => given(deleted).when({ type: "UpdateSpace", name: "x", now }))).toBe(
      "resource-not-found",
    );
    expect(problem(() => given(deleted).when({ type: "DeleteSpace", now }))).toBe(
      "resource-not-found",
    );
    expect(problem(() => given(deleted).when(create()))).toBe("resource-conflict");
  });
});
