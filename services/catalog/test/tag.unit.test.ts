import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { TAG_COLORS, decideTag, initialTagState, type TagCommand } from "../src/domain/tag.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const create = (over: Partial<Extract<TagCommand, { type: "CreateTag" }>> = {}): TagCommand => ({
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
const update = (over: Partial<Extract<TagCommand, { type: "UpdateTag" }>> = {}): TagCommand => ({
  type: "UpdateTag",
  id: "t1",
  name: undefined,
  description: undefined,
  color: undefined,
  now,
  ...over,
});
const existing = { exists: true, spaceId: "s1" };

const problem = (f: () => unknown): string => {
  try {
    f();
    return "ok";
  } catch (err) {
    return err instanceof DomainError ? `${err.type}: ${err.message}` : String(err);
  }
};

describe("CreateTag", () => {
  it("given no tag, records TagCreated with null description and color, updated_at = created_at", () => {
    expect(decideTag(create(), initialTagState)).toEqual([
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

  it("trims the name, accepts 100 characters and rejects 101", () => {
    const [e] = decideTag(create({ name: `  ${"a".repeat(100)}  ` }), initialTagState);
    expect(e!.type === "TagCreated" && e!.data.name).toBe("a".repeat(100));
    expect(problem(() => decideTag(create({ name: "a".repeat(101) }), initialTagState))).toMatch(
      /^invalid-request: name must be at most 100/,
    );
  });

  it("counts characters, not UTF-16 units", () => {
    expect(problem(() => decideTag(create({ name: "😀".repeat(100) }), initialTagState))).toBe(
      "ok",
    );
  });

  it("rejects empty and whitespace-only names", () => {
    for (const name of ["", " ", "\t\n "])
      expect(problem(() => decideTag(create({ name }), initialTagState))).toMatch(
        /^invalid-request/,
      );
  });

  it("accepts each of the 19 colors and rejects any other", () => {
    expect(TAG_COLORS).toHaveLength(19);
    for (const color of TAG_COLORS)
      expect(problem(() => decideTag(create({ color }), initialTagState))).toBe("ok");
    expect(problem(() => decideTag(create({ color: "MAGENTA" }), initialTagState))).toMatch(
      /^invalid-request: color must be one of/,
    );
  });

  it("accepts a 1000-character description and rejects 1001", () => {
    expect(
      problem(() => decideTag(create({ description: "d".repeat(1000) }), initialTagState)),
    ).toBe("ok");
    expect(
      problem(() => decideTag(create({ description: "d".repeat(1001) }), initialTagState)),
    ).toMatch(/^invalid-request/);
  });

  it("given an existing tag, is a conflict", () => {
    expect(problem(() => decideTag(create(), existing))).toMatch(/^resource-conflict/);
  });
});

describe("UpdateTag", () => {
  it("needs at least one field", () => {
    expect(problem(() => decideTag(update(), existing))).toBe(
      "invalid-request: At least one field (name, description, color) must be provided",
    );
  });

  it("records only the fields given; null clears description and color", () => {
    expect(decideTag(update({ description: null, color: null }), existing)).toEqual([
      {
        type: "TagUpdated",
        data: {
          id: "t1",
          space_id: "s1",
          description: null,
          color: null,
          updated_at: now.toISOString(),
        },
      },
    ]);
    const [e] = decideTag(update({ name: " renamed " }), existing);
    expect(e!.data).toEqual({
      id: "t1",
      space_id: "s1",
      name: "renamed",
      updated_at: now.toISOString(),
    });
  });

  it("applies the create rules to a new name and color", () => {
    expect(problem(() => decideTag(update({ name: "   " }), existing))).toMatch(/^invalid-request/);
    expect(problem(() => decideTag(update({ name: "x".repeat(101) }), existing))).toMatch(
      /^invalid-request/,
    );
    expect(problem(() => decideTag(update({ color: "NAVY" }), existing))).toMatch(
      /^invalid-request/,
    );
  });

  it("given no tag, is not found", () => {
    expect(problem(() => decideTag(update({ name: "x" }), initialTagState))).toMatch(
      /^resource-not-found/,
    );
  });
});

describe("DeleteTag", () => {
  it("records TagDeleted with the tag's space", () => {
    expect(decideTag({ type: "DeleteTag", id: "t1", now }, existing)).toEqual([
      { type: "TagDeleted", data: { id: "t1", space_id: "s1", deleted_at: now.toISOString() } },
    ]);
  });

  it("given no tag, is not found", () => {
    expect(problem(() => decideTag({ type: "DeleteTag", id: "t1", now }, initialTagState))).toMatch(
      /^resource-not-found/,
    );
  });
});
