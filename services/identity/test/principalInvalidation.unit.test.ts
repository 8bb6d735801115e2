import { describe, expect, it } from "vitest";
import { stillWaiting } from "../src/authentication/principalInvalidation.ts";
import { accountToInvalidate } from "../src/authentication/authorizationChanges.ts";
import { secretExpiry } from "../src/authentication/authenticate.ts";

const appended = (type: string, account_id?: unknown) => ({
  events: [{ type, data: {} }],
  metadata: account_id === undefined ? {} : { account_id },
});

describe("which account a committed command invalidates", () => {
  it("the account of the events that change authorization", () => {
    expect(accountToInvalidate([appended("ApiKeyRevoked", "acc-1")])).toBe("acc-1");
    expect(
      accountToInvalidate([
        appended("RoleBindingDeleted", "acc-1"),
        appended("ApiKeyRevoked", "acc-1"),
      ]),
    ).toBe("acc-1");
  });

  it("none when no decision was made, or only events that do not change authorization", () => {
    expect(accountToInvalidate([])).toBeUndefined();
    expect(accountToInvalidate([appended("ApiKeyCreated", "acc-1")])).toBeUndefined();
    expect(accountToInvalidate([appended("OrganizationUpdated", "acc-1")])).toBeUndefined();
  });

  it("a decision that appended nothing: it may retry one whose confirmation never finished", () => {
    expect(accountToInvalidate([{ events: [], metadata: { account_id: "acc-1" } }])).toBe("acc-1");
  });

  it("every account when the events name none, or several, and for unknown event types", () => {
    expect(accountToInvalidate([appended("UserDeleted")])).toBe("");
    expect(accountToInvalidate([appended("UserDeleted", "")])).toBe("");
    expect(
      accountToInvalidate([appended("UserDeleted", "acc-1"), appended("UserDeleted", "acc-2")]),
    ).toBe("");
    expect(accountToInvalidate([appended("SomethingNew", "acc-1")])).toBe("acc-1");
  });
});

describe("waiting for the gateways' confirmations", () => {
  const leases = [
    { gatewayId: "a", remainingMs: 3_000 },
    { gatewayId: "b", remainingMs: 1_000 },
  ];

  it("waits for the longest lease among those that have not confirmed", () => {
    expect(stillWaiting(leases, new Set(), 0)).toBe(3_000);
    expect(stillWaiting(leases, new Set(["a"]), 0)).toBe(1_000);
    expect(stillWaiting(leases, new Set(["a"]), 400)).toBe(600);
  });

  it("stops once each confirmed or its lease ran out", () => {
    expect(stillWaiting(leases, new Set(["a", "b"]), 0)).toBeUndefined();
    expect(stillWaiting(leases, new Set(["a"]), 1_000)).toBeUndefined();
    expect(stillWaiting(leases, new Set(), 3_000)).toBeUndefined();
    expect(stillWaiting([], new Set(), 0)).toBeUndefined();
  });
});

describe("how long a secret authenticates", () => {
  it("the earlier of the key's expiry and its grace period's end; 0 when neither", () => {
    const t = (s: string) => new Date(s);
    expect(secretExpiry(null, null)).toBe(0n);
    expect(secretExpiry(t("2030-01-01T00:00:00Z"), null)).toBe(
      BigInt(Date.parse("2030-01-01T00:00:00Z")),
    );
    expect(secretExpiry(t("2030-01-01T00:00:00Z"), t("2029-01-01T00:00:00Z"))).toBe(
      BigInt(Date.parse("2029-01-01T00:00:00Z")),
    );
    expect(secretExpiry(null, t("2029-01-01T00:00:00Z"))).toBe(
      BigInt(Date.parse("2029-01-01T00:00:00Z")),
    );
  });
});
