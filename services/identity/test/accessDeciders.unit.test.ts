import { describe, expect, it } from "vitest";
import { DomainError, PERMISSIONS } from "@argus/platform";
import {
  INVITATION_TTL_MS,
  decideDeleteUser,
  decideInviteUser,
  decideResendInvitation,
  decideUpdateUser,
  normalizeUserName,
  userStatus,
  type UserState,
} from "../src/domain/user.ts";
import {
  decideCreateRole,
  decideDeleteRole,
  decideUpdateRole,
  type RoleState,
} from "../src/domain/role.ts";
import { decideDeleteRoleBinding, decideUpdateRoleBinding } from "../src/domain/roleBinding.ts";
import { decideUpdateOrganization } from "../src/domain/organizationLifecycle.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};

const user: UserState = {
  id: "u1",
  name: "Ada",
  isDeveloper: true,
  status: "INVITED",
  invitationExpiresAt: new Date(now.getTime() + 1000),
};
const update = (over: Partial<Parameters<typeof decideUpdateUser>[0]>) =>
  decideUpdateUser(
    {
      type: "UpdateUser",
      name: undefined,
      isDeveloper: undefined,
      callerIsAdmin: true,
      callerMayUpdateUsers: true,
      now,
      ...over,
    },
    user,
  );

describe("user decider (spec endpoint 11)", () => {
  it("names are trimmed, 1 to 255 characters after trimming", () => {
    expect(normalizeUserName("  a  ")).toBe("a");
    expect(normalizeUserName(` ${"x".repeat(255)} `)).toHaveLength(255);
    expect(problem(() => normalizeUserName("x".repeat(256)))).toBe("invalid-request");
    expect(problem(() => normalizeUserName(""))).toBe("invalid-request");
    expect(problem(() => normalizeUserName(" \t "))).toBe("invalid-request");
  });

  it("needs at least one field", () => {
    expect(problem(() => update({}))).toBe("invalid-request");
  });

  it("is_developer only by account admins, even with USER_UPDATE", () => {
    expect(problem(() => update({ isDeveloper: false, callerIsAdmin: false }))).toBe(
      "access-forbidden",
    );
    expect(update({ isDeveloper: false })).toEqual([
      {
        type: "UserUpdated",
        data: { id: "u1", is_developer: false, updated_at: now.toISOString() },
      },
    ]);
  });

  it("the name needs the admin role or USER_UPDATE", () => {
    expect(
      problem(() => update({ name: "B", callerIsAdmin: false, callerMayUpdateUsers: false })),
    ).toBe("access-forbidden");
    expect(update({ name: " B ", callerIsAdmin: false })).toEqual([
      { type: "UserUpdated", data: { id: "u1", name: "B", updated_at: now.toISOString() } },
    ]);
  });

  it("the same values are a no-op", () => {
    expect(update({ name: " Ada ", isDeveloper: true })).toEqual([]);
  });

  it("status: INVITED while the token is valid, EXPIRED after, ACTIVE stays", () => {
    expect(userStatus("INVITED", new Date(now.getTime() + 1), now)).toBe("INVITED");
    expect(userStatus("INVITED", now, now)).toBe("EXPIRED");
    expect(userStatus("INVITED", null, now)).toBe("EXPIRED");
    expect(userStatus("ACTIVE", null, now)).toBe("ACTIVE");
  });

  it("invites with an expiring token; developer unless annotator; admins only", () => {
    const base = {
      type: "InviteUser" as const,
      id: "u2",
      accountId: "a",
      name: " Bo ",
      email: "bo@example.com",
      isDeveloper: undefined,
      inviteMode: "EMAIL_LINK" as const,
      callerIsAdmin: true,
      now,
    };
    const [ev] = decideInviteUser({ ...base, accountRole: "member" });
    expect(ev!.data).toMatchObject({
      name: "Bo",
      is_developer: true,
      status: "INVITED",
      invitation_expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    });
    expect(decideInviteUser({ ...base, accountRole: "annotator" })[0]!.data).toMatchObject({
      is_developer: false,
    });
    expect(
      problem(() => decideInviteUser({ ...base, accountRole: "member", callerIsAdmin: false })),
    ).toBe("access-forbidden");
  });

  it("no self-deletion; no resend to an ACTIVE user", () => {
    expect(
      problem(() => decideDeleteUser({ type: "DeleteUser", callerUserId: "u1", now }, user)),
    ).toBe("invalid-request");
    expect(decideDeleteUser({ type: "DeleteUser", callerUserId: "x", now }, user)[0]!.type).toBe(
      "UserDeleted",
    );
    expect(
      problem(() =>
        decideResendInvitation({ type: "ResendInvitation", now }, { ...user, status: "ACTIVE" }),
      ),
    ).toBe("invalid-request");
  });
});

const role: RoleState = {
  id: "r1",
  name: "R",
  description: "d",
  permissions: ["TAG_READ"],
  isPredefined: false,
  bindingCount: 0,
};

describe("role decider", () => {
  const create = (permissions: string[], name = "R") =>
    decideCreateRole({ id: "r1", accountId: "a", name, description: "", permissions, now });

  it("needs at least one known permission; duplicates collapse", () => {
    expect(problem(() => create([]))).toBe("invalid-request");
    expect(problem(() => create(["NOPE"]))).toBe("invalid-request");
    expect(create(["TAG_READ", "TAG_READ"])[0]!.data).toMatchObject({ permissions: ["TAG_READ"] });
    expect(create([...PERMISSIONS])[0]!.data).toMatchObject({
      permissions: [...PERMISSIONS].sort(),
    });
  });

  it("names 1 to 255", () => {
    expect(problem(() => create(["TAG_READ"], " "))).toBe("invalid-request");
    expect(problem(() => create(["TAG_READ"], "x".repeat(256)))).toBe("invalid-request");
    expect(create(["TAG_READ"], "x".repeat(255))).toHaveLength(1);
  });

  it("predefined roles are immutable; a bound role cannot be deleted", () => {
    const predefined = { ...role, isPredefined: true };
    const upd = { name: "x", description: undefined, permissions: undefined, now };
    expect(problem(() => decideUpdateRole(upd, predefined))).toBe("access-forbidden");
    expect(problem(() => decideDeleteRole(predefined))).toBe("access-forbidden");
    expect(problem(() => decideDeleteRole({ ...role, bindingCount: 1 }))).toBe("resource-conflict");
    expect(decideDeleteRole(role)).toEqual([{ type: "RoleDeleted", data: { id: "r1" } }]);
  });

  it("an update needs a field and replaces permissions when given", () => {
    expect(
      problem(() =>
        decideUpdateRole(
          { name: undefined, description: undefined, permissions: undefined, now },
          role,
        ),
      ),
    ).toBe("invalid-request");
    expect(
      decideUpdateRole(
        { name: undefined, description: undefined, permissions: ["SPACE_READ"], now },
        role,
      )[0]!.data,
    ).toMatchObject({ name: "R", description: "d", permissions: ["SPACE_READ"] });
  });
});

describe("role binding decider", () => {
  const state = { id: "b1", roleId: "r1", subjectType: "USER" as const, subjectId: "u1" };
  it("rebinding the same role is a no-op; another role is an update", () => {
    expect(decideUpdateRoleBinding({ roleId: "r1", now }, state)).toEqual([]);
    expect(decideUpdateRoleBinding({ roleId: "r2", now }, state)[0]!.type).toBe(
      "RoleBindingUpdated",
    );
    expect(decideDeleteRoleBinding(state)[0]!.data).toEqual({
      id: "b1",
      subject_type: "USER",
      subject_id: "u1",
    });
  });
});

describe("organization lifecycle decider", () => {
  it("organization update: a field is required, unchanged is a no-op", () => {
    const org = { id: "o1", name: "O", description: "" };
    expect(problem(() => decideUpdateOrganization({ now }, org))).toBe("invalid-request");
    expect(decideUpdateOrganization({ name: "O", now }, org)).toEqual([]);
    expect(decideUpdateOrganization({ description: "x", now }, org)).toHaveLength(1);
  });
});

describe("decideInviteUser with invite_mode NONE", () => {
  it("then the user is ACTIVE at once, with no invitation to expire", () => {
    const [ev] = decideInviteUser({
      type: "InviteUser",
      id: "u3",
      accountId: "a",
      name: "Sso",
      email: "sso@example.com",
      accountRole: "member",
      isDeveloper: undefined,
      inviteMode: "NONE",
      callerIsAdmin: true,
      now: new Date("2026-01-01T00:00:00Z"),
    });
    expect(ev!.data).toMatchObject({ status: "ACTIVE", invitation_expires_at: null });
  });
});
