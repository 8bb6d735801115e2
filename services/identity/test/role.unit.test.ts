import { describe, expect, it } from "vitest";
import { PERMISSIONS, predefinedRole } from "@argus/platform";
import { roleDecider, type RoleCommand } from "../src/roles/roleDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const given = givenOf(roleDecider);
const create = (permissions: string[], name = "R"): RoleCommand => ({
  type: "CreateRole",
  id: "r1",
  accountId: "a",
  name,
  description: "d",
  permissions,
  now,
});
const update = (c: {
  name?: string;
  description?: string;
  permissions?: string[];
  id?: string;
}): RoleCommand => ({
  type: "UpdateRole",
  id: c.id ?? "r1",
  name: c.name,
  description: c.description,
  permissions: c.permissions,
  now,
});
const del = (bindingCount = 0, id = "r1"): RoleCommand => ({
  type: "DeleteRole",
  id,
  bindingCount,
});
const created = given().then(create(["TAG_READ"]));
const deleted = given(created).then(del());

describe("role decider", () => {
  it("needs at least one known permission; duplicates collapse", () => {
    expect(problem(() => given().when(create([])))).toBe("invalid-request");
    expect(problem(() => given().when(create(["NOPE"])))).toBe("invalid-request");
    expect(given().when(create(["TAG_READ", "TAG_READ"]))[0]!.data).toMatchObject({
      permissions: ["TAG_READ"],
    });
    expect(given().when(create([...PERMISSIONS]))[0]!.data).toMatchObject({
      permissions: [...PERMISSIONS].sort(),
    });
  });

  it("names 1 to 255", () => {
    expect(problem(() => given().when(create(["TAG_READ"], " ")))).toBe("invalid-request");
    expect(problem(() => given().when(create(["TAG_READ"], "x".repeat(256))))).toBe(
      "invalid-request",
    );
    expect(given().when(create(["TAG_READ"], "x".repeat(255)))).toHaveLength(1);
  });

  it("predefined roles are immutable; a bound role cannot be deleted", () => {
    const admin = predefinedRole("ADMIN").id;
    expect(problem(() => given().when(update({ id: admin, name: "x" })))).toBe("access-forbidden");
    expect(problem(() => given().when(del(0, admin)))).toBe("access-forbidden");
    expect(problem(() => given(created).when(del(1)))).toBe("resource-conflict");
    expect(deleted.at(-1)).toEqual({ type: "RoleDeleted", data: { id: "r1" } });
  });

  it("an update needs a field and replaces permissions when given", () => {
    expect(problem(() => given(created).when(update({})))).toBe("invalid-request");
    expect(given(created).when(update({ permissions: ["SPACE_READ"] }))[0]!.data).toMatchObject({
      name: "R",
      description: "d",
      permissions: ["SPACE_READ"],
    });
  });

  it("an update folds into the state the next decision sees", () => {
    const renamed = given(created).then(update({ name: " S " }));
    expect(given(renamed).when(update({ description: "e" }))[0]!.data).toMatchObject({
      name: "S",
      permissions: ["TAG_READ"],
    });
  });

  it("given deleted (or never created), update and delete are 404", () => {
    for (const history of [deleted, []]) {
      expect(problem(() => given(history).when(update({ name: "x" })))).toBe("resource-not-found");
      expect(problem(() => given(history).when(del()))).toBe("resource-not-found");
    }
  });
});
