import { describe, expect, it } from "vitest";
import {
  restrictionDecider,
  type RestrictionCommand,
} from "../src/resourceRestrictions/restrictionDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-01T00:00:00.000Z");
const given = givenOf(restrictionDecider);
const restrict = (
  accountId = "a1",
  resourceType: "PROJECT" | "DASHBOARD" | "PROMPT" = "PROJECT",
): RestrictionCommand => ({
  type: "RestrictProject",
  projectId: "p1",
  resourceType,
  accountId,
  spaceId: "s1",
  now,
});
const lift = (accountId = "a1"): RestrictionCommand => ({ type: "LiftRestriction", accountId });
const restricted = given().then(restrict());
/** A restriction's event as written before it kept the resource's space. */
const CREATED_BEFORE_SPACES = {
  resource_id: "p1",
  account_id: "a1",
  resource_type: "PROJECT" as const,
  created_at: now.toISOString(),
};
const lifted = given(restricted).then(lift());

describe("restriction decider", () => {
  it("given nothing, RestrictProject yields ResourceRestrictionCreated", () => {
    expect(restricted).toEqual([
      {
        type: "ResourceRestrictionCreated",
        data: { ...CREATED_BEFORE_SPACES, space_id: "s1" },
      },
    ]);
  });

  it("restricting again is a no-op that keeps the first creation time", () => {
    expect(given(restricted).when(restrict())).toEqual([]);
    expect(given(restricted).state).toMatchObject({ createdAt: now.toISOString(), spaceId: "s1" });
  });

  it("lifting yields ResourceRestrictionDeleted; then the project may be restricted again", () => {
    expect(lifted.at(-1)).toEqual({
      type: "ResourceRestrictionDeleted",
      data: { resource_id: "p1", resource_type: "PROJECT" },
    });
    expect(given(lifted).when(restrict())).toHaveLength(1);
  });

  it("given lifted (or never restricted, or another account's), lifting is 404", () => {
    expect(problem(() => given(lifted).when(lift()))).toBe("resource-not-found");
    expect(problem(() => given().when(lift()))).toBe("resource-not-found");
    expect(problem(() => given(restricted).when(lift("a2")))).toBe("resource-not-found");
    expect(problem(() => given(restricted).when(restrict("a2")))).toBe("resource-conflict");
  });

  it("a restriction recorded without its space folds to a state without one (account admins lift it)", () => {
    const state = restrictionDecider.evolve(restrictionDecider.initialState, {
      type: "ResourceRestrictionCreated",
      data: CREATED_BEFORE_SPACES,
    });
    expect(state).toEqual({
      status: "restricted",
      projectId: "p1",
      resourceType: "PROJECT",
      accountId: "a1",
      createdAt: now.toISOString(),
    });
  });

  it("DASHBOARD and PROMPT restrictions carry their type; another type on the same id is 409", () => {
    const prompt = given().then(restrict("a1", "PROMPT"));
    expect(prompt[0]).toMatchObject({ data: { resource_type: "PROMPT" } });
    expect(given(prompt).when(restrict("a1", "PROMPT"))).toEqual([]);
    expect(problem(() => given(prompt).when(restrict("a1", "DASHBOARD")))).toBe(
      "resource-conflict",
    );
    expect(given().when(restrict("a1", "DASHBOARD"))[0]).toMatchObject({
      data: { resource_type: "DASHBOARD" },
    });
  });
});
