import { describe, expect, it } from "vitest";
import { DomainError, encodeId } from "@argus/platform";
import { memberOf } from "../src/routes/params.ts";

const user = "0189aaaa-0000-7000-8000-0000000000aa";
const role = "0189aaaa-0000-7000-8000-0000000000bb";

describe("a new member's body (organizations and spaces)", () => {
  it("a predefined role by name, a custom one by its id", () => {
    expect(
      memberOf({ user_id: encodeId("User", user), role: { type: "PREDEFINED", name: "ADMIN" } }),
    ).toEqual({ userId: user, roleName: "ADMIN", customRoleId: "" });
    expect(
      memberOf({
        user_id: encodeId("User", user),
        role: { type: "CUSTOM", id: encodeId("Role", role) },
      }),
    ).toEqual({ userId: user, roleName: "", customRoleId: role });
  });

  it("an id of another type, or no id at all, is a 422 naming the field", () => {
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof DomainError ? [err.type, err.message] : err;
      }
      return "accepted";
    };
    expect(
      refusal(() =>
        memberOf({ user_id: encodeId("Role", user), role: { type: "PREDEFINED", name: "ADMIN" } }),
      ),
    ).toEqual(["unprocessable-entity", "user_id is not a user id"]);
    expect(
      refusal(() =>
        memberOf({ user_id: encodeId("User", user), role: { type: "CUSTOM", id: "garbage" } }),
      ),
    ).toEqual(["unprocessable-entity", "role.id is not a role id"]);
  });
});
