import { describe, expect, it } from "vitest";
import { decideInitialization, type InitState } from "../src/domain/installation.ts";

const settings = {
  orgName: "Org",
  spaceName: "Space",
  adminEmail: "a@x.io",
  adminName: "A",
  apiKeyHash: Buffer.from("h"),
  redactedKey: "abcdef…wxyz",
};
const ids = { account: "acc", organization: "org", space: "sp", user: "usr", apiKey: "key" };
const nothing: InitState = {
  accountId: null,
  organizationId: null,
  spaceId: null,
  adminUserId: null,
  keyExists: false,
};
const now = new Date("2026-01-01T00:00:00Z");

describe("headless initialization", () => {
  it("on an empty store creates account, organization, space, admin user and key, in order", () => {
    const events = decideInitialization(settings, nothing, ids, now);
    expect(events.map((e) => e.type)).toEqual([
      "AccountCreated",
      "OrganizationCreated",
      "SpaceCreated",
      "UserCreated",
      "ApiKeyCreated",
    ]);
    expect(events[3]!.data).toMatchObject({
      account_role: "admin",
      is_developer: true,
      email: "a@x.io",
    });
    expect(events[4]!.data).toMatchObject({
      key_type: "USER",
      user_id: "usr",
      created_by_user_id: "usr",
    });
  });

  it("never puts the key hash into an event", () => {
    const json = JSON.stringify(decideInitialization(settings, nothing, ids, now));
    expect(json).not.toContain(settings.apiKeyHash.toString("hex"));
    expect(json).not.toContain("key_hash");
  });

  it("on restart with the same settings appends nothing", () => {
    const done: InitState = {
      accountId: "acc",
      organizationId: "org",
      spaceId: "sp",
      adminUserId: "usr",
      keyExists: true,
    };
    expect(decideInitialization(settings, done, ids, now)).toEqual([]);
  });

  it("a changed initial key adds only a key for the existing admin", () => {
    const rotated: InitState = {
      accountId: "acc0",
      organizationId: "org0",
      spaceId: "sp0",
      adminUserId: "usr0",
      keyExists: false,
    };
    const events = decideInitialization(settings, rotated, ids, now);
    expect(events.map((e) => e.type)).toEqual(["ApiKeyCreated"]);
    expect(events[0]!.data).toMatchObject({ account_id: "acc0", user_id: "usr0" });
  });
});
