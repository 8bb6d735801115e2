import { describe, expect, it } from "vitest";
import type { ApiKeyEvent } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import { apiKeyDecider, type ApiKeyCommand } from "../src/apiKeys/apiKeyDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-06-01T00:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const given = givenOf(apiKeyDecider);

function rejects(history: ApiKeyEvent[], command: ApiKeyCommand, type: string, detail: RegExp) {
  try {
    given(history).when(command);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe(type);
    expect((err as DomainError).message).toMatch(detail);
    return;
  }
  throw new Error("expected a DomainError");
}

type Create = Extract<ApiKeyCommand, { type: "CreateUserKey" }>;
const userKey = (o: Partial<Create> = {}): Create => ({
  type: "CreateUserKey",
  id: "k1",
  accountId: "a1",
  createdByUserId: "u1",
  creatorActive: true,
  name: "key",
  description: "",
  expiresAt: null,
  redactedKey: "ak-argus-…abcd",
  now,
  ...o,
});
const refresh = (
  o: Partial<Extract<ApiKeyCommand, { type: "RefreshKey" }>> = {},
): ApiKeyCommand => ({
  type: "RefreshKey",
  expiresAt: null,
  gracePeriodSeconds: 0,
  redactedKey: "ak-argus-…wxyz",
  now,
  ...o,
});
const revoke: ApiKeyCommand = { type: "RevokeKey", now };
const active = given().then(userKey());
const bounded = given().then(userKey({ expiresAt: later(10_000) }));
const revoked = given(active).then(revoke);

describe("create", () => {
  it("a USER key acts as its creator and carries no secret", () => {
    const [e, ...rest] = active;
    expect(rest).toEqual([]);
    expect(e!.type).toBe("ApiKeyCreated");
    expect(e!.data).toMatchObject({ key_type: "USER", user_id: "u1", service_account_id: null });
    expect(Object.keys(e!.data).some((k) => /hash|secret|^key$/.test(k))).toBe(false);
  });

  it("name 1..256 and description ..1000 characters; expiry in the future", () => {
    expect(given().when(userKey({ name: "n".repeat(256) }))).toHaveLength(1);
    rejects([], userKey({ name: "n".repeat(257) }), "unprocessable-entity", /256/);
    rejects([], userKey({ name: " " }), "unprocessable-entity", /empty/);
    expect(given().when(userKey({ description: "d".repeat(1000) }))).toHaveLength(1);
    rejects([], userKey({ description: "d".repeat(1001) }), "unprocessable-entity", /1000/);
    rejects([], userKey({ expiresAt: now }), "unprocessable-entity", /future/);
  });

  it("a SERVICE key names its service account and no user", () => {
    const [e] = given().when({ ...userKey(), type: "CreateServiceKey", serviceAccountId: "sa1" });
    expect(e!.data).toMatchObject({
      key_type: "SERVICE",
      user_id: null,
      service_account_id: "sa1",
    });
  });

  it("not for a creator deleted meanwhile; not twice", () => {
    rejects([], userKey({ creatorActive: false }), "authentication-required", /deleted/);
    rejects(active, userKey(), "resource-conflict", /exists/);
  });
});

describe("revoke", () => {
  it("revokes an active key; a revoked key is a no-op (spec endpoint 4, rule 2)", () => {
    expect(given(active).when(revoke)).toEqual([
      { type: "ApiKeyRevoked", data: { id: "k1", revoked_at: now.toISOString() } },
    ]);
    expect(given(revoked).when(revoke)).toEqual([]);
    rejects([], revoke, "resource-not-found", /not found/);
  });
});

describe("refresh", () => {
  const graceOf = (history: ApiKeyEvent[], c: ApiKeyCommand) =>
    (given(history).when(c)[0]!.data as { previous_secret_valid_until: string | null })
      .previous_secret_valid_until;

  it("grace period 0..86400 s; the old secret never outlives the key", () => {
    expect(graceOf(active, refresh())).toBeNull();
    expect(graceOf(active, refresh({ gracePeriodSeconds: 1 }))).toBe(later(1000).toISOString());
    expect(graceOf(active, refresh({ gracePeriodSeconds: 86_400 }))).toBe(
      later(86_400_000).toISOString(),
    );
    rejects(active, refresh({ gracePeriodSeconds: 86_401 }), "unprocessable-entity", /86400/);
    rejects(active, refresh({ gracePeriodSeconds: -1 }), "unprocessable-entity", /86400/);
    expect(graceOf(bounded, refresh({ gracePeriodSeconds: 60, expiresAt: later(5_000) }))).toBe(
      later(10_000).toISOString(),
    );
  });

  it("expiry: required when the key has one, never later than it, always in the future", () => {
    rejects(bounded, refresh(), "unprocessable-entity", /required/);
    rejects(bounded, refresh({ expiresAt: later(20_000) }), "unprocessable-entity", /later/);
    expect(given(bounded).when(refresh({ expiresAt: later(10_000) }))).toHaveLength(1);
    rejects(active, refresh({ expiresAt: now }), "unprocessable-entity", /future/);
    expect(given(active).when(refresh({ expiresAt: later(1) }))[0]!.data).toMatchObject({
      expires_at: later(1).toISOString(),
    });
  });

  it("a refresh folds in: the next refresh sees the new expiry", () => {
    const shortened = given(bounded).then(refresh({ expiresAt: later(5_000) }));
    rejects(shortened, refresh({ expiresAt: later(8_000) }), "unprocessable-entity", /later/);
  });

  it("a revoked, expired or unknown key cannot be refreshed", () => {
    rejects(revoked, refresh(), "unprocessable-entity", /revoked/);
    const expired = given().then(userKey({ expiresAt: later(1) }));
    rejects(expired, { ...refresh(), now: later(1) }, "unprocessable-entity", /expired/);
    expect(problem(() => given().when(refresh()))).toBe("resource-not-found");
  });
});
