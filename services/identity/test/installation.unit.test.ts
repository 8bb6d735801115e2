import { describe, expect, it } from "vitest";
import type { IdentityEvent } from "@argus/contracts";
import { accountDecider } from "../src/initialization/accountDecider.ts";
import { apiKeyDecider } from "../src/apiKeys/apiKeyDecider.ts";
import {
  planInitialization,
  type InitState,
  type InitStep,
} from "../src/initialization/initializationPlan.ts";
import { organizationDecider } from "../src/organizations/organizationDecider.ts";
import { spaceDecider } from "../src/spaces/spaceDecider.ts";
import { userDecider } from "../src/users/userDecider.ts";

const settings = {
  orgName: "Org",
  spaceName: "Space",
  adminEmail: "a@x.io",
  adminName: "A",
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

/** Each step decided on its new stream, as initialization's transaction does. */
function decided(steps: InitStep[]): { streamId: string; event: IdentityEvent }[] {
  return steps.flatMap((s) => {
    const events: readonly IdentityEvent[] =
      s.aggregate === "account"
        ? accountDecider.decide(s.command, accountDecider.initialState)
        : s.aggregate === "organization"
          ? organizationDecider.decide(s.command, organizationDecider.initialState)
          : s.aggregate === "space"
            ? spaceDecider.decide(s.command, spaceDecider.initialState)
            : s.aggregate === "user"
              ? userDecider.decide(s.command, userDecider.initialState)
              : apiKeyDecider.decide(s.command, apiKeyDecider.initialState);
    return events.map((event) => ({ streamId: `${s.aggregate}-${s.id}`, event }));
  });
}

describe("headless initialization", () => {
  it("on an empty store creates account, organization, space, admin user and key, in order", () => {
    const events = decided(planInitialization(settings, nothing, ids, now));
    expect(events.map((e) => [e.streamId, e.event.type])).toEqual([
      ["account-acc", "AccountCreated"],
      ["organization-org", "OrganizationCreated"],
      ["space-sp", "SpaceCreated"],
      ["user-usr", "UserCreated"],
      ["api_key-key", "ApiKeyCreated"],
    ]);
    expect(events[3]!.event.data).toMatchObject({
      account_role: "admin",
      is_developer: true,
      email: "a@x.io",
      status: "ACTIVE",
    });
    expect(events[4]!.event.data).toMatchObject({
      key_type: "USER",
      user_id: "usr",
      created_by_user_id: "usr",
    });
  });

  it("never puts the key or its hash into a command or an event", () => {
    const steps = planInitialization(settings, nothing, ids, now);
    const json = JSON.stringify([steps, decided(steps)]);
    expect(json).not.toContain("key_hash");
    expect(json).not.toContain("apiKeyHash");
  });

  it("on restart with the same settings decides nothing", () => {
    const done: InitState = {
      accountId: "acc",
      organizationId: "org",
      spaceId: "sp",
      adminUserId: "usr",
      keyExists: true,
    };
    expect(planInitialization(settings, done, ids, now)).toEqual([]);
  });

  it("a changed initial key adds only a key for the existing admin", () => {
    const rotated: InitState = {
      accountId: "acc0",
      organizationId: "org0",
      spaceId: "sp0",
      adminUserId: "usr0",
      keyExists: false,
    };
    const events = decided(planInitialization(settings, rotated, ids, now));
    expect(events.map((e) => e.event.type)).toEqual(["ApiKeyCreated"]);
    expect(events[0]!.event.data).toMatchObject({ account_id: "acc0", user_id: "usr0" });
  });
});
