import { describe, expect, it } from "vitest";
import type { DomainError } from "@argus/platform";
import {
  decideAcceptInvitation,
  decideInviteUser,
  revokeKeysOfDeletedUser,
  type AccountRoleName,
  type UserState,
} from "../src/domain/user.ts";

const now = new Date("2026-01-01T00:00:00.000Z");
const invited: UserState = {
  id: "u1",
  name: "Invitee",
  isDeveloper: true,
  status: "INVITED",
  invitationExpiresAt: null,
};
const at = (ms: number) => new Date(now.getTime() + ms);
const typeOf = (f: () => unknown): string => {
  try {
    f();
    return "ok";
  } catch (err) {
    return (err as DomainError).type;
  }
};

describe("decideAcceptInvitation", () => {
  it("given a token expiring 1 ms from now, when accepted, then UserInvitationAccepted", () => {
    expect(
      decideAcceptInvitation({ type: "AcceptInvitation", tokenExpiresAt: at(1), now }, invited),
    ).toEqual([
      { type: "UserInvitationAccepted", data: { id: "u1", accepted_at: now.toISOString() } },
    ]);
  });

  it("given a token expiring exactly now or 1 ms ago, then 422 (lapsed)", () => {
    for (const ms of [0, -1])
      expect(
        typeOf(() =>
          decideAcceptInvitation(
            { type: "AcceptInvitation", tokenExpiresAt: at(ms), now },
            invited,
          ),
        ),
      ).toBe("unprocessable-entity");
  });

  it("given an ACTIVE user, then 409", () => {
    expect(
      typeOf(() =>
        decideAcceptInvitation(
          { type: "AcceptInvitation", tokenExpiresAt: at(1000), now },
          { ...invited, status: "ACTIVE" },
        ),
      ),
    ).toBe("resource-conflict");
  });
});

describe("revokeKeysOfDeletedUser", () => {
  it("one ApiKeyRevoked per key, each on its key's stream; none for no keys", () => {
    expect(revokeKeysOfDeletedUser([], now)).toEqual([]);
    expect(revokeKeysOfDeletedUser(["k1", "k2"], now)).toEqual([
      {
        streamId: "apikey-k1",
        event: { type: "ApiKeyRevoked", data: { id: "k1", revoked_at: now.toISOString() } },
      },
      {
        streamId: "apikey-k2",
        event: { type: "ApiKeyRevoked", data: { id: "k2", revoked_at: now.toISOString() } },
      },
    ]);
  });
});

describe("decideInviteUser with a CUSTOM account role", () => {
  it("given a role outside admin/member/annotator, then 422 (not yet supported)", () => {
    expect(
      typeOf(() =>
        decideInviteUser({
          type: "InviteUser",
          id: "u2",
          accountId: "a1",
          name: "c",
          email: "c@example.com",
          accountRole: "custom" as AccountRoleName,
          isDeveloper: undefined,
          inviteMode: "EMAIL_LINK",
          callerIsAdmin: true,
          now,
        }),
      ),
    ).toBe("unprocessable-entity");
  });
});
