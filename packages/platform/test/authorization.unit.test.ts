import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AccountRole } from "@argus/proto/common/v1";
import { hasProjectPermission } from "../src/authorization.ts";
import { GATEWAY_PRINCIPAL, attachPrincipal, verifyPrincipal } from "../src/principal.ts";

const reader = {
  ...GATEWAY_PRINCIPAL,
  accountId: "a",
  accountRole: AccountRole.ACCOUNT_ROLE_MEMBER,
  spacePermissions: { s1: { permissions: ["PROJECT_READ"] } },
};

describe("hasProjectPermission", () => {
  it("an unrestricted project follows its space's permissions", () => {
    expect(hasProjectPermission(reader, "s1", "p1", "PROJECT_READ")).toBe(true);
    expect(hasProjectPermission(reader, "s1", "p1", "PROJECT_UPDATE")).toBe(false);
    expect(hasProjectPermission(reader, "s2", "p1", "PROJECT_READ")).toBe(false);
  });

  it("a restricted project answers only to explicit bindings, whatever the space grants", () => {
    const unbound = { ...reader, restrictedProjects: { p1: { permissions: [] } } };
    expect(hasProjectPermission(unbound, "s1", "p1", "PROJECT_READ")).toBe(false);
    const bound = { ...reader, restrictedProjects: { p1: { permissions: ["PROJECT_READ"] } } };
    expect(hasProjectPermission(bound, "s1", "p1", "PROJECT_READ")).toBe(true);
    expect(hasProjectPermission(bound, "s1", "p1", "PROJECT_UPDATE")).toBe(false);
    // Bound on a restricted project of a space they cannot read: the binding suffices.
    expect(hasProjectPermission(bound, "s2", "p1", "PROJECT_READ")).toBe(true);
  });

  it("account admins may do everything, restricted or not", () => {
    const admin = {
      ...reader,
      accountRole: AccountRole.ACCOUNT_ROLE_ADMIN,
      restrictedProjects: { p1: { permissions: [] } },
    };
    expect(hasProjectPermission(admin, "s9", "p1", "PROJECT_DELETE")).toBe(true);
  });

  it("restricted projects travel with the signed principal", () => {
    const md = new Metadata();
    const restrictedProjects = { p1: { permissions: ["PROJECT_READ"] }, p2: { permissions: [] } };
    attachPrincipal(md, { ...reader, restrictedProjects }, "s".repeat(32), 1000);
    expect(verifyPrincipal(md, "s".repeat(32), 60_000, 2000).restrictedProjects).toEqual(
      restrictedProjects,
    );
  });
});
