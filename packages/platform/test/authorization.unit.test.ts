import { describe, expect, it } from "vitest";
import { AccountRole } from "@argus/proto/common/v1";
import {
  canSeeSpace,
  decideInSpace,
  hasProjectPermission,
  hasSpacePermission,
  holdsAnywhere,
  spaceRuleSql,
} from "../src/authorization.ts";
import { predefinedRole } from "../src/permissions.ts";
import { testPrincipal } from "../src/testing/principal.ts";

const publicSpace = { id: "s1", organizationId: "o1", isPrivate: false };
const privateSpace = { id: "s2", organizationId: "o1", isPrivate: true };
const otherOrgSpace = { id: "s3", organizationId: "o2", isPrivate: true };
const reader = testPrincipal({ perms: { s1: ["PROJECT_READ"] } });
const member = testPrincipal();
const annotator = testPrincipal({ accountRole: AccountRole.ACCOUNT_ROLE_ANNOTATOR });
const admin = testPrincipal({ accountRole: AccountRole.ACCOUNT_ROLE_ADMIN });
const orgAdmin = testPrincipal({
  accountRole: AccountRole.ACCOUNT_ROLE_UNSPECIFIED,
  organizationIds: ["o1"],
  adminOrganizationIds: ["o1"],
});
const bound = (role: "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR", p = member) => ({
  ...p,
  spaceGrants: [{ roleId: predefinedRole(role).id, resourceIds: ["s2"] }],
});

describe("space permissions from the grants and the space's facts", () => {
  it("account members read public spaces and nothing private they are not bound in", () => {
    expect(hasSpacePermission(member, publicSpace, "PROMPT_READ")).toBe(true);
    expect(hasSpacePermission(member, publicSpace, "PROMPT_CREATE")).toBe(false);
    expect(hasSpacePermission(member, privateSpace, "PROMPT_READ")).toBe(false);
    expect(canSeeSpace(member, privateSpace)).toBe(false);
    expect(canSeeSpace(member, publicSpace)).toBe(true);
  });

  it("a space binding grants its role there, private or not", () => {
    expect(hasSpacePermission(bound("MEMBER"), privateSpace, "PROMPT_CREATE")).toBe(true);
    expect(hasSpacePermission(bound("READ_ONLY"), privateSpace, "PROMPT_CREATE")).toBe(false);
    expect(canSeeSpace(bound("READ_ONLY"), privateSpace)).toBe(true);
  });

  it("custom roles travel by id with their permissions", () => {
    const custom = testPrincipal({ perms: { s2: ["PROMPT_DELETE"] } });
    expect(hasSpacePermission(custom, privateSpace, "PROMPT_DELETE")).toBe(true);
    expect(hasSpacePermission(custom, privateSpace, "PROMPT_UPDATE")).toBe(false);
  });

  it("organization admins hold ADMIN in every space of their organizations only", () => {
    expect(hasSpacePermission(orgAdmin, privateSpace, "SPACE_UPDATE")).toBe(true);
    expect(canSeeSpace(orgAdmin, privateSpace)).toBe(true);
    expect(hasSpacePermission(orgAdmin, otherOrgSpace, "PROMPT_READ")).toBe(false);
    expect(canSeeSpace(orgAdmin, otherOrgSpace)).toBe(false);
  });

  it("annotators are capped to the ANNOTATOR role whatever is bound", () => {
    const boundAdmin = bound("ADMIN", annotator);
    expect(hasSpacePermission(boundAdmin, privateSpace, "QUEUE_RECORD_ANNOTATE")).toBe(true);
    expect(hasSpacePermission(boundAdmin, privateSpace, "PROMPT_DELETE")).toBe(false);
    expect(hasSpacePermission(annotator, publicSpace, "PROMPT_READ")).toBe(false);
  });

  it("account admins may do everything", () => {
    expect(hasSpacePermission(admin, otherOrgSpace, "SPACE_DELETE")).toBe(true);
    expect(canSeeSpace(admin, otherOrgSpace)).toBe(true);
  });

  it("decides without the space's facts only when they cannot matter", () => {
    expect(decideInSpace(admin, "s9", "PROMPT_DELETE")).toBe(true);
    expect(decideInSpace(bound("MEMBER"), "s2", "PROMPT_CREATE")).toBe(true);
    expect(decideInSpace(member, "s9", "PROMPT_READ")).toBeUndefined();
    expect(decideInSpace(member, "s9", "PROMPT_CREATE")).toBe(false);
    expect(decideInSpace(orgAdmin, "s9", "PROMPT_CREATE")).toBeUndefined();
    expect(decideInSpace(testPrincipal({ accountRole: 0 }), "s9", "PROMPT_READ")).toBe(false);
  });

  it("holds an account-wide permission anywhere only through a role that grants it", () => {
    expect(holdsAnywhere(member, "USER_UPDATE")).toBe(false);
    expect(holdsAnywhere(orgAdmin, "USER_UPDATE")).toBe(false);
    expect(holdsAnywhere(testPrincipal({ perms: { s1: ["USER_UPDATE"] } }), "USER_UPDATE")).toBe(
      true,
    );
    expect(holdsAnywhere(admin, "ROLE_CREATE")).toBe(true);
  });

  it("the list rule's parameters grow with the grants, not with the account", () => {
    const rule = spaceRuleSql(reader, "PROJECT_READ", "s", 4);
    expect(rule.sql).toContain("$4::uuid[]");
    expect(rule.params).toEqual([["s1"], [], true]);
    expect(spaceRuleSql(orgAdmin, "PROMPT_CREATE", "s", 1).params).toEqual([[], ["o1"], false]);
    expect(spaceRuleSql(admin, "PROMPT_CREATE", "s", 1)).toEqual({ sql: "true", params: [] });
    expect(spaceRuleSql(orgAdmin, null, "s", 1).params).toEqual([[], ["o1"], true]);
  });
});

describe("hasProjectPermission", () => {
  const p1 = { id: "p1", restricted: false };
  const r1 = { id: "p1", restricted: true };
  it("an unrestricted project follows its space's permissions", () => {
    expect(hasProjectPermission(reader, publicSpace, p1, "PROJECT_READ")).toBe(true);
    expect(hasProjectPermission(reader, publicSpace, p1, "PROJECT_UPDATE")).toBe(false);
    expect(hasProjectPermission(reader, privateSpace, p1, "PROJECT_READ")).toBe(false);
  });

  it("a restricted project answers only to explicit bindings, whatever the space grants", () => {
    expect(hasProjectPermission(reader, publicSpace, r1, "PROJECT_READ")).toBe(false);
    const boundOnProject = {
      ...reader,
      projectGrants: [{ roleId: predefinedRole("READ_ONLY").id, resourceIds: ["p1"] }],
    };
    expect(hasProjectPermission(boundOnProject, publicSpace, r1, "PROJECT_READ")).toBe(true);
    expect(hasProjectPermission(boundOnProject, publicSpace, r1, "PROJECT_UPDATE")).toBe(false);
    // Bound on a restricted project of a space they cannot read: the binding suffices.
    expect(hasProjectPermission(boundOnProject, privateSpace, r1, "PROJECT_READ")).toBe(true);
  });

  it("account admins may do everything, restricted or not", () => {
    expect(hasProjectPermission(admin, otherOrgSpace, r1, "PROJECT_DELETE")).toBe(true);
  });
});
