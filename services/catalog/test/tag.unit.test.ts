import { describe, expect, it } from "vitest";
import type { TagEvent } from "@argus/contracts";
import { TAG_COLORS, tagDecider, type TagCommand } from "../src/tags/tagDecider.ts";
import { problemDetail as problem, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
type Create = Extract<TagCommand, { type: "CreateTag" }>;
type Update = Extract<TagCommand, { type: "UpdateTag" }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: "CreateTag",
  id: "t1",
  accountId: "a1",
  spaceId: "s1",
  name: "prod",
  description: null,
  color: null,
  now,
  ...over,
});
const update = (over: Partial<Update> = {}): Update => ({
  type: "UpdateTag",
  name: undefined,
  description: undefined,
  color: undefined,
  now,
  ...over,
});
const del: TagCommand = { type: "DeleteTag", now };

const { given, history } = scenario(tagDecider);
const nothing: TagEvent[] = [];
const created = history(create());
const deleted = history(create(), del);

describe("CreateTag", () => {
  it("given no tag, records TagCreated with null description and color, updated_at = created_at", () => {
    expect(given(nothing).when(create())).toEqual([
      {
        type: "TagCreated",
        data: {
          id: "t1",
          account_id: "a1",
          space_id: "s1",
          name: "prod",
          description: null,
          color: null,
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
        },
      },
    ]);
  });

  it("stores the name trimmed; measures it as sent: 100 characters pass, 101 do not", () => {
    const [e] = given(nothing).when(create({ name: "  padded  " }));
    expect(e!.type === "TagCreated" && e!.data.name).toBe("padded");
    expect(problem(() => given(nothing).when(create({ name: "a".repeat(100) })))).toBe("ok");
    expect(problem(() => given(nothing).when(create({ name: "a".repeat(101) })))).toMatch(
      /^invalid-request: name must be at most 100/,
    );
    expect(problem(() => given(nothing).when(create({ name: ` ${"a".repeat(100)}` })))).toMatch(
      /^invalid-request: name must be at most 100/,
    );
  });

  it("counts characters, not UTF-16 units", () => {
    expect(problem(() => given(nothing).when(create({ name: "😀".repeat(100) })))).toBe("ok");
  });

  it("rejects empty and whitespace-only names", () => {
    for (const name of ["", " ", "\t\n "])
      expect(problem(() => given(nothing).when(create({ name })))).toMatch(/^invalid-request/);
  });

  it("accepts each of the 19 colors and rejects any other", () => {
    expect(TAG_COLORS).toHaveLength(19);
    for (const color of TAG_COLORS)
      expect(problem(() => given(nothing).when(create({ color })))).toBe("ok");
    expect(problem(() => given(nothing).when(create({ color: "MAGENTA" })))).toMatch(
      /^invalid-request: color must be one of/,
    );
  });

  it("accepts a 1000-character description and rejects 1001", () => {
    const d = (n: number) => create({ description: "d".repeat(n) });
    expect(problem(() => given(nothing).when(d(1000)))).toBe("ok");
    expect(problem(() => given(nothing).when(d(1001)))).toMatch(/^invalid-request/);
  });

  it("given a tag, or a deleted one, creating it again is a conflict", () => {
    expect(problem(() => given(created).when(create()))).toMatch(/^resource-conflict/);
    expect(problem(() => given(deleted).when(create()))).toMatch(/^resource-conflict/);
  });
});

describe("UpdateTag", () => {
  it("needs at least one field", () => {
    expect(problem(() => given(created).when(update()))).toBe(
      "invalid-request: At least one field (name, description, color) must be provided",
    );
  });

  it("records only the fields given; null clears description and color", () => {
    expect(given(created).when(update({ description: null, color: null }))).toEqual([
      {
        type: "TagUpdated",
        data: {
          id: "t1",
          space_id: "s1",
          description: null,
          color: null,
          updated_at: new Date(now.getTime() + 1).toISOString(),
        },
      },
    ]);
    const [e] = given(created).when(update({ name: " renamed ", now: new Date(9e12) }));
    expect(e!.data).toEqual({
      id: "t1",
      space_id: "s1",
      name: "renamed",
      updated_at: new Date(9e12).toISOString(),
    });
  });

  it("updated_at advances past the last change, even within its millisecond", () => {
    const twice = history(create(), update({ color: "RED" }), update({ color: "PLUM" }));
    const stamps = twice.map((e) => (e.data as { updated_at: string }).updated_at);
    expect(stamps).toEqual([0, 1, 2].map((ms) => new Date(now.getTime() + ms).toISOString()));
  });

  it("applies the create rules to a new name and color", () => {
    expect(problem(() => given(created).when(update({ name: "   " })))).toMatch(/^invalid-request/);
    expect(problem(() => given(created).when(update({ name: "x".repeat(101) })))).toMatch(
      /^invalid-request/,
    );
    expect(problem(() => given(created).when(update({ color: "NAVY" })))).toMatch(
      /^invalid-request/,
    );
  });

  it("given no tag, or a deleted one, is not found", () => {
    expect(problem(() => given(nothing).when(update({ name: "x" })))).toMatch(
      /^resource-not-found/,
    );
    expect(problem(() => given(deleted).when(update({ name: "x" })))).toMatch(
      /^resource-not-found/,
    );
  });
});

describe("DeleteTag", () => {
  it("records TagDeleted with the tag's space", () => {
    expect(given(created).when(del)).toEqual([
      { type: "TagDeleted", data: { id: "t1", space_id: "s1", deleted_at: now.toISOString() } },
    ]);
  });

  it("given no tag, or a deleted one, is not found: never a second TagDeleted", () => {
    expect(problem(() => given(nothing).when(del))).toMatch(/^resource-not-found/);
    expect(problem(() => given(deleted).when(del))).toMatch(/^resource-not-found/);
  });
});
