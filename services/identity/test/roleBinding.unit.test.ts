import { describe, expect, it } from "vitest";
import {
  roleBindingDecider,
  type RoleBindingCommand,
} from "../src/roleBindings/roleBindingDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const given = givenOf(roleBindingDecider);
const found = { role: true, subject: true, resource: true };
const create = (over: Partial<typeof found> = {}): RoleBindingCommand => ({
  type: "CreateRoleBinding",
  id: "b1",
  accountId: "a",
  roleId: "r1",
  subjectType: "USER",
  subjectId: "u1",
  resourceType: "SPACE",
  resourceId: "s1",
  found: { ...found, ...over },
  now,
});
const rebind = (roleId: string, roleFound = true): RoleBindingCommand => ({
  type: "UpdateRoleBinding",
  roleId,
  roleFound,
  now,
});
const del: RoleBindingCommand = { type: "DeleteRoleBinding" };
const created = given().then(create());
const deleted = given(created).then(del);

describe("role binding decider", () => {
  it("given nothing, a binding on a live role, subject and resource is created", () => {
    expect(created[0]).toEqual({
      type: "RoleBindingCreated",
      data: {
        id: "b1",
        account_id: "a",
        role_id: "r1",
        subject_type: "USER",
        subject_id: "u1",
        resource_type: "SPACE",
        resource_id: "s1",
        created_at: now.toISOString(),
      },
    });
    for (const gone of ["role", "subject"] as const)
      expect(problem(() => given().when(create({ [gone]: false })))).toBe("resource-not-found");
    // A resource that is not there is refused as one not the caller's, as the public API does.
    expect(problem(() => given().when(create({ resource: false })))).toBe("access-forbidden");
    expect(problem(() => given(created).when(create()))).toBe("resource-conflict");
  });

  it("rebinding the same role is a no-op; another role is an update; an unknown one 404", () => {
    expect(given(created).when(rebind("r1"))).toEqual([]);
    expect(given(created).when(rebind("r2"))[0]!.type).toBe("RoleBindingUpdated");
    expect(problem(() => given(created).when(rebind("r9", false)))).toBe("resource-not-found");
    const rebound = given(created).then(rebind("r2"));
    expect(given(rebound).when(rebind("r2"))).toEqual([]);
  });

  it("delete names the subject", () => {
    expect(deleted.at(-1)!.data).toEqual({ id: "b1", subject_type: "USER", subject_id: "u1" });
  });

  it("given deleted (or never created), update and delete are 404", () => {
    for (const history of [deleted, []]) {
      expect(problem(() => given(history).when(rebind("r2")))).toBe("resource-not-found");
      expect(problem(() => given(history).when(del))).toBe("resource-not-found");
    }
  });

  it("a service key's grant (no stream of its own) is decided from its projected row", () => {
    const granted = {
      id: "g1",
      roleId: "r1",
      subjectType: "SERVICE_ACCOUNT" as const,
      subjectId: "sa1",
    };
    expect(given().when({ ...rebind("r1"), granted } as RoleBindingCommand)).toEqual([]);
    const updated = given().then({ ...rebind("r2"), granted } as RoleBindingCommand);
    expect(updated[0]!.data).toMatchObject({ id: "g1", role_id: "r2" });
    const gone = given(updated).then({ type: "DeleteRoleBinding", granted });
    expect(problem(() => given(gone).when({ type: "DeleteRoleBinding", granted }))).toBe(
      "resource-not-found",
    );
  });
});
