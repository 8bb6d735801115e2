import { describe, expect, it } from "vitest";
import type { AccountRoleName } from "@argus/contracts";
import { userDecider, type UserCommand } from "../src/users/userDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms);
const given = givenOf(userDecider);
const invite = (accountRole: AccountRoleName = "member"): UserCommand => ({
  type: "InviteUser",
  id: "u1",
  accountId: "a1",
  name: "Invitee",
  email: "i@example.com",
  accountRole,
  isDeveloper: undefined,
  inviteMode: "EMAIL_LINK",
  callerIsAdmin: true,
  callerMayInvite: true,
  now,
});
const accept = (tokenExpiresAt: Date): UserCommand => ({
  type: "AcceptInvitation",
  tokenExpiresAt,
  now,
});
const invited = given().then(invite());

describe("accepting an invitation", () => {
  it("given a token expiring 1 ms from now, when accepted, then UserInvitationAccepted", () => {
    expect(given(invited).when(accept(at(1)))).toEqual([
      { type: "UserInvitationAccepted", data: { id: "u1", accepted_at: now.toISOString() } },
    ]);
  });

  it("given a token expiring exactly now or 1 ms ago, then 422 (lapsed)", () => {
    for (const ms of [0, -1])
      expect(problem(() => given(invited).when(accept(at(ms))))).toBe("unprocessable-entity");
  });

  it("given an accepted invitation, then 409, and the user is ACTIVE", () => {
    const accepted = given(invited).then(accept(at(1000)));
    expect(problem(() => given(accepted).when(accept(at(1000))))).toBe("resource-conflict");
    expect(given(accepted).state).toMatchObject({ invitation: "ACTIVE" });
  });
});

describe("inviting with a CUSTOM account role", () => {
  it("given a role outside admin/member/annotator, then 422 (not yet supported)", () => {
    expect(problem(() => given().when(invite("custom" as AccountRoleName)))).toBe(
      "unprocessable-entity",
    );
  });
});
