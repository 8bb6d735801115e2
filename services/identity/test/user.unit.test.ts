import { describe, expect, it } from "vitest";
import type { UserEvent } from "@argus/contracts";
import { userDecider, type UserCommand } from "../src/users/userDecider.ts";
import {
  INVITATION_TTL_MS,
  PASSWORD_RESET_TTL_MS,
  normalizeUserName,
  userStatus,
} from "../src/users/userRules.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const given = givenOf(userDecider);
type Invite = Extract<UserCommand, { type: "InviteUser" }>;
const invite = (over: Partial<Invite> = {}): Invite => ({
  type: "InviteUser",
  id: "u1",
  accountId: "a",
  name: "Ada",
  email: "ada@example.com",
  accountRole: "member",
  isDeveloper: undefined,
  inviteMode: "EMAIL_LINK",
  callerIsAdmin: true,
  callerMayInvite: true,
  now,
  ...over,
});
const update = (over: Partial<Extract<UserCommand, { type: "UpdateUser" }>>): UserCommand => ({
  type: "UpdateUser",
  name: undefined,
  isDeveloper: undefined,
  callerIsAdmin: true,
  callerMayUpdateUsers: true,
  now,
  ...over,
});
const invited: UserEvent[] = given().then(invite());
const deleted = given(invited).then({ type: "DeleteUser", callerUserId: "admin", now });

describe("user decider (spec endpoint 11)", () => {
  it("names are trimmed, 1 to 255 characters after trimming", () => {
    expect(normalizeUserName("  a  ")).toBe("a");
    expect(normalizeUserName(` ${"x".repeat(255)} `)).toHaveLength(255);
    expect(problem(() => normalizeUserName("x".repeat(256)))).toBe("invalid-request");
    expect(problem(() => normalizeUserName(""))).toBe("invalid-request");
    expect(problem(() => normalizeUserName(" \t "))).toBe("invalid-request");
  });

  it("an update needs at least one field", () => {
    expect(problem(() => given(invited).when(update({})))).toBe("invalid-request");
  });

  it("is_developer only by account admins, even with USER_UPDATE", () => {
    expect(
      problem(() => given(invited).when(update({ isDeveloper: false, callerIsAdmin: false }))),
    ).toBe("access-forbidden");
    expect(given(invited).when(update({ isDeveloper: false }))).toEqual([
      {
        type: "UserUpdated",
        data: { id: "u1", is_developer: false, updated_at: now.toISOString() },
      },
    ]);
  });

  it("the name needs the admin role or USER_UPDATE", () => {
    const caller = { callerIsAdmin: false, callerMayUpdateUsers: false };
    expect(problem(() => given(invited).when(update({ name: "B", ...caller })))).toBe(
      "access-forbidden",
    );
    expect(given(invited).when(update({ name: " B ", callerIsAdmin: false }))).toEqual([
      { type: "UserUpdated", data: { id: "u1", name: "B", updated_at: now.toISOString() } },
    ]);
  });

  it("the same values are a no-op, also after an update folded in", () => {
    expect(given(invited).when(update({ name: " Ada ", isDeveloper: true }))).toEqual([]);
    const renamed = given(invited).then(update({ name: "Bo" }));
    expect(given(renamed).when(update({ name: "Bo" }))).toEqual([]);
  });

  it("status: INVITED while the token is valid, EXPIRED after, ACTIVE stays", () => {
    expect(userStatus("INVITED", new Date(now.getTime() + 1), now)).toBe("INVITED");
    expect(userStatus("INVITED", now, now)).toBe("EXPIRED");
    expect(userStatus("INVITED", null, now)).toBe("EXPIRED");
    expect(userStatus("ACTIVE", null, now)).toBe("ACTIVE");
  });

  it("invites with an expiring token; developer unless annotator; admins only", () => {
    const [ev] = given().when(invite({ name: " Bo " }));
    expect(ev!.data).toMatchObject({
      name: "Bo",
      is_developer: true,
      status: "INVITED",
      invitation_expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    });
    expect(given().when(invite({ accountRole: "annotator" }))[0]!.data).toMatchObject({
      is_developer: false,
    });
    const inviter = { callerIsAdmin: false, callerMayInvite: true };
    expect(problem(() => given().when(invite({ ...inviter, callerMayInvite: false })))).toBe(
      "access-forbidden",
    );
    // USER_CREATE without the admin role adds members and annotators, never admins.
    expect(given().when(invite(inviter))[0]!.data).toMatchObject({ account_role: "member" });
    expect(given().when(invite({ ...inviter, accountRole: "annotator" }))).toHaveLength(1);
    expect(problem(() => given().when(invite({ ...inviter, accountRole: "admin" })))).toBe(
      "access-forbidden",
    );
    expect(problem(() => given().when(invite({ ...inviter, isDeveloper: false })))).toBe(
      "access-forbidden",
    );
    expect(given().when(invite({ isDeveloper: false }))[0]!.data).toMatchObject({
      is_developer: false,
    });
    expect(problem(() => given(invited).when(invite()))).toBe("resource-conflict");
  });

  it("with invite_mode NONE the user is ACTIVE at once, with no invitation to expire", () => {
    const [ev] = given().when(invite({ inviteMode: "NONE" }));
    expect(ev!.data).toMatchObject({ status: "ACTIVE", invitation_expires_at: null });
  });

  it("no self-deletion; no resend to an ACTIVE user", () => {
    expect(
      problem(() => given(invited).when({ type: "DeleteUser", callerUserId: "u1", now })),
    ).toBe("invalid-request");
    expect(deleted.at(-1)).toEqual({
      type: "UserDeleted",
      data: { id: "u1", deleted_at: now.toISOString() },
    });
    const active = given().then(invite({ inviteMode: "NONE" }));
    expect(problem(() => given(active).when({ type: "ResendInvitation", now }))).toBe(
      "invalid-request",
    );
  });

  it("inviting an e-mail again: valid token as it is, lapsed or missing renewed, active 409", () => {
    const expiry = new Date(now.getTime() + INVITATION_TTL_MS);
    const again = (mode: "NONE" | "EMAIL_LINK", tokenExpiresAt: Date | null): UserCommand => ({
      type: "InviteAgain",
      inviteMode: mode,
      tokenExpiresAt,
      now,
    });
    expect(given(invited).when(again("EMAIL_LINK", expiry))).toEqual([]);
    const renewed = [
      {
        type: "UserInvitationResent",
        data: { id: "u1", invitation_expires_at: expiry.toISOString() },
      },
    ];
    expect(given(invited).when(again("EMAIL_LINK", now))).toEqual(renewed);
    expect(given(invited).when(again("EMAIL_LINK", null))).toEqual(renewed);
    expect(problem(() => given(invited).when(again("NONE", expiry)))).toBe("resource-conflict");
    const active = given().then(invite({ inviteMode: "NONE" }));
    expect(problem(() => given(active).when(again("EMAIL_LINK", null)))).toBe("resource-conflict");
  });

  it("given deleted, update, resend and accept are 404; a second delete changes nothing", () => {
    const commands: UserCommand[] = [
      update({ name: "x" }),
      { type: "ResendInvitation", now },
      { type: "AcceptInvitation", tokenExpiresAt: new Date(now.getTime() + 1), now },
      { type: "InviteAgain", inviteMode: "EMAIL_LINK", tokenExpiresAt: null, now },
    ];
    for (const c of commands)
      expect(problem(() => given(deleted).when(c))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(invite()))).toBe("resource-conflict");
    // The public API: "blocking an already-inactive user returns 204".
    expect(given(deleted).when({ type: "DeleteUser", callerUserId: "admin", now })).toEqual([]);
  });
});

describe("TEMPORARY_PASSWORD and password resets", () => {
  it("TEMPORARY_PASSWORD adds the user ACTIVE at once; inviting its e-mail again is 409", () => {
    const [ev] = given().when(invite({ inviteMode: "TEMPORARY_PASSWORD" }));
    expect(ev!.data).toMatchObject({ status: "ACTIVE", invitation_expires_at: null });
    const again: UserCommand = {
      type: "InviteAgain",
      inviteMode: "TEMPORARY_PASSWORD",
      tokenExpiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      now,
    };
    expect(problem(() => given(invited).when(again))).toBe("resource-conflict");
  });

  it("a reset needs a password: a 30-minute token event, else 400; a deleted user 404", () => {
    const active = given().then(invite({ inviteMode: "TEMPORARY_PASSWORD" }));
    expect(given(active).when({ type: "ResetPassword", hasPassword: true, now })).toEqual([
      {
        type: "UserPasswordResetRequested",
        data: {
          id: "u1",
          reset_expires_at: new Date(now.getTime() + PASSWORD_RESET_TTL_MS).toISOString(),
          requested_at: now.toISOString(),
        },
      },
    ]);
    expect(PASSWORD_RESET_TTL_MS).toBe(30 * 60 * 1000);
    expect(
      problem(() => given(active).when({ type: "ResetPassword", hasPassword: false, now })),
    ).toBe("invalid-request");
    expect(
      problem(() => given(deleted).when({ type: "ResetPassword", hasPassword: true, now })),
    ).toBe("resource-not-found");
  });
});
