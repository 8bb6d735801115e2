import { describe, expect, it } from "vitest";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { testPrincipal } from "@argus/platform/testing";
import {
  canReadKey,
  canRefreshKey,
  canRevokeKey,
  type KeyFacts,
} from "../src/apiKeys/apiKeyAccess.ts";

const principal = testPrincipal;

const admin = principal({ userId: "root", accountRole: AccountRole.ACCOUNT_ROLE_ADMIN });
const s1 = { id: "s1", organizationId: "o1", isPrivate: true };
const s2 = { id: "s2", organizationId: "o1", isPrivate: true };
const userKey: KeyFacts = {
  keyType: "USER",
  accountId: "a1",
  createdByUserId: "u1",
  boundSpaces: [],
};
const serviceKey: KeyFacts = {
  keyType: "SERVICE",
  accountId: "a1",
  createdByUserId: "u1",
  boundSpaces: [s1, s2],
};
const none = new Set<string>();

describe("USER keys (spec endpoint 4, rule 3)", () => {
  it("the creator and account admins revoke; anyone else cannot even read (404)", () => {
    expect(canRevokeKey(principal(), userKey, none)).toBe(true);
    expect(canRevokeKey(admin, userKey, none)).toBe(true);
    const other = principal({ userId: "u2" });
    expect(canReadKey(other, userKey, none)).toBe(false);
    expect(canRevokeKey(other, userKey, none)).toBe(false);
  });

  it("another account's key is unreadable even to an admin of this one", () => {
    expect(canReadKey(admin, { ...userKey, accountId: "a2" }, none)).toBe(false);
  });
});

describe("SERVICE keys (spec endpoint 4, rules 4 and 5)", () => {
  it("space admins of ALL bound spaces revoke whoever created the key", () => {
    const spaceAdmin = principal({ userId: "u9" });
    expect(canRevokeKey(spaceAdmin, serviceKey, new Set(["s1", "s2"]))).toBe(true);
    expect(canRevokeKey(spaceAdmin, serviceKey, new Set(["s1"]))).toBe(false);
  });

  it("others need SERVICE_KEY_REVOKE in every bound space AND to be the creator", () => {
    const both = { s1: ["SERVICE_KEY_REVOKE"], s2: ["SERVICE_KEY_REVOKE"] };
    expect(canRevokeKey(principal({ perms: both }), serviceKey, none)).toBe(true);
    expect(
      canRevokeKey(principal({ perms: { s1: ["SERVICE_KEY_REVOKE"] } }), serviceKey, none),
    ).toBe(false);
    expect(canRevokeKey(principal({ userId: "u2", perms: both }), serviceKey, none)).toBe(false);
    expect(canRevokeKey(principal({ perms: both }), { ...serviceKey, boundSpaces: [] }, none)).toBe(
      false,
    );
  });

  it("readable with SERVICE_KEY_READ in a bound space; hidden (404) otherwise", () => {
    const reader = principal({ userId: "u2", perms: { s2: ["SERVICE_KEY_READ"] } });
    expect(canReadKey(reader, serviceKey, none)).toBe(true);
    expect(
      canReadKey(
        principal({ userId: "u2", perms: { s3: ["SERVICE_KEY_READ"] } }),
        serviceKey,
        none,
      ),
    ).toBe(false);
  });

  it("refresh: admins, space admins of all bound spaces, or the creator with SERVICE_KEY_CREATE everywhere", () => {
    expect(canRefreshKey(admin, serviceKey, none)).toBe(true);
    expect(canRefreshKey(principal({ userId: "u9" }), serviceKey, new Set(["s1", "s2"]))).toBe(
      true,
    );
    const creates = { s1: ["SERVICE_KEY_CREATE"], s2: ["SERVICE_KEY_CREATE"] };
    expect(canRefreshKey(principal({ perms: creates }), serviceKey, none)).toBe(true);
    expect(canRefreshKey(principal({ userId: "u2", perms: creates }), serviceKey, none)).toBe(
      false,
    );
  });

  it("a service account principal is never a creator", () => {
    const sa = principal({
      userId: "",
      serviceAccountId: "sa1",
      keyType: KeyType.KEY_TYPE_SERVICE,
    });
    expect(canRevokeKey(sa, { ...userKey, createdByUserId: "" }, none)).toBe(false);
  });
});
