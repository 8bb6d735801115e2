import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  decideSpace,
  evolveSpace,
  initialSpaceState,
  type CreateSpace,
} from "../src/domain/space.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const create = (over: Partial<CreateSpace> = {}): CreateSpace => ({
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

const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
  }
  return "none";
};

describe("space decider", () => {
  it("given no space, CreateSpace yields SpaceCreated with the command's values", () => {
    expect(decideSpace(create({ description: "d", isPrivate: true }), initialSpaceState)).toEqual([
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
    expect(decideSpace(create({ name: "n".repeat(255) }), initialSpaceState)).toHaveLength(1);
    expect(problem(() => decideSpace(create({ name: "n".repeat(256) }), initialSpaceState))).toBe(
      "invalid-request",
    );
    expect(problem(() => decideSpace(create({ name: "   " }), initialSpaceState))).toBe(
      "invalid-request",
    );
  });

  it("names count characters, not UTF-16 units", () => {
    expect(decideSpace(create({ name: "😀".repeat(255) }), initialSpaceState)).toHaveLength(1);
  });

  it("descriptions: 1000 characters pass, 1001 are invalid", () => {
    expect(decideSpace(create({ description: "d".repeat(1000) }), initialSpaceState)).toHaveLength(
      1,
    );
    expect(
      problem(() => decideSpace(create({ description: "d".repeat(1001) }), initialSpaceState)),
    ).toBe("invalid-request");
  });

  it("given a created space, creating it again conflicts", () => {
    const state = evolveSpace(initialSpaceState, decideSpace(create(), initialSpaceState)[0]!);
    expect(problem(() => decideSpace(create(), state))).toBe("resource-conflict");
  });
});
