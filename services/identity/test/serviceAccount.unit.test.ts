import { describe, expect, it } from "vitest";
import {
  serviceAccountDecider,
  type CreateServiceAccount,
  type RoleGrant,
} from "../src/apiKeys/serviceAccountDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-06-01T00:00:00Z");
const given = givenOf(serviceAccountDecider);
const space: RoleGrant = { bindingId: "b1", roleId: "r1", resourceType: "SPACE", resourceId: "s1" };
const create = (grants: RoleGrant[] = [space]): CreateServiceAccount => ({
  type: "CreateServiceAccount",
  id: "sa1",
  accountId: "a1",
  name: "bot",
  createdByUserId: "u1",
  accountRole: "MEMBER",
  grants,
  now,
});

describe("service account decider", () => {
  it("creates the account, then one grant per role binding, on its stream", () => {
    expect(
      given()
        .when(create())
        .map((e) => e.type),
    ).toEqual(["ServiceAccountCreated", "ServiceAccountRoleGranted"]);
    expect(given().when(create())[1]!.data).toEqual({
      id: "b1",
      account_id: "a1",
      service_account_id: "sa1",
      role_id: "r1",
      resource_type: "SPACE",
      resource_id: "s1",
      created_at: now.toISOString(),
    });
  });

  it("a service key needs a space; an account is created once", () => {
    const org: RoleGrant = { ...space, resourceType: "ORGANIZATION", resourceId: "o1" };
    expect(problem(() => given().when(create([org])))).toBe("unprocessable-entity");
    expect(problem(() => given(given().then(create())).when(create()))).toBe("resource-conflict");
  });
});
