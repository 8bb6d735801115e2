import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  decideApiKey,
  initialApiKeyState,
  type ApiKeyCommand,
  type ApiKeyState,
} from "../src/apiKeysDecide.ts";

const now = new Date("2026-06-01T00:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const active: ApiKeyState = { exists: true, status: "ACTIVE", expiresAt: null };

function rejects(command: ApiKeyCommand, state: ApiKeyState, type: string, detail: RegExp) {
  try {
    decideApiKey(command, state);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).type).toBe(type);
    expect((err as DomainError).message).toMatch(detail);
    return;
  }
  throw new Error("expected a DomainError");
}

const userKey = (
  o: Partial<Extract<ApiKeyCommand, { type: "CreateUserKey" }>> = {},
): ApiKeyCommand => ({
  type: "CreateUserKey",
  id: "k1",
  accountId: "a1",
  createdByUserId: "u1",
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
  id: "k1",
  expiresAt: null,
  gracePeriodSeconds: 0,
  redactedKey: "ak-argus-…wxyz",
  now,
  ...o,
});

describe("create", () => {
  it("a USER key acts as its creator and carries no secret", () => {
    const [e, ...rest] = decideApiKey(userKey(), initialApiKeyState);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ streamId: "apikey-k1", type: "ApiKeyCreated" });
    expect(e!.data).toMatchObject({ key_type: "USER", user_id: "u1", service_account_id: null });
    expect(Object.keys(e!.data).some((k) => /hash|secret|^key$/.test(k))).toBe(false);
  });

  it("name 1..255 and description ..1000 characters; expiry in the future", () => {
    expect(decideApiKey(userKey({ name: "n".repeat(255) }), initialApiKeyState)).toHaveLength(1);
    rejects(userKey({ name: "n".repeat(256) }), initialApiKeyState, "unprocessable-entity", /255/);
    rejects(userKey({ name: " " }), initialApiKeyState, "unprocessable-entity", /empty/);
    expect(
      decideApiKey(userKey({ description: "d".repeat(1000) }), initialApiKeyState),
    ).toHaveLength(1);
    rejects(
      userKey({ description: "d".repeat(1001) }),
      initialApiKeyState,
      "unprocessable-entity",
      /1000/,
    );
    rejects(userKey({ expiresAt: now }), initialApiKeyState, "unprocessable-entity", /future/);
  });

  it("a SERVICE key creates its service account, its role grants and the key, in that order", () => {
    const events = decideApiKey(
      {
        ...(userKey() as Extract<ApiKeyCommand, { type: "CreateUserKey" }>),
        type: "CreateServiceKey",
        serviceAccountId: "sa1",
        serviceAccountName: "bot",
        grants: [{ bindingId: "b1", roleId: "r1", resourceType: "SPACE", resourceId: "s1" }],
      },
      initialApiKeyState,
    );
    expect(events.map((e) => [e.streamId, e.type])).toEqual([
      ["serviceaccount-sa1", "ServiceAccountCreated"],
      ["serviceaccount-sa1", "ServiceAccountRoleGranted"],
      ["apikey-k1", "ApiKeyCreated"],
    ]);
    expect(events[2]!.data).toMatchObject({
      key_type: "SERVICE",
      user_id: null,
      service_account_id: "sa1",
    });
  });

  it("a SERVICE key needs a space", () => {
    rejects(
      {
        ...(userKey() as Extract<ApiKeyCommand, { type: "CreateUserKey" }>),
        type: "CreateServiceKey",
        serviceAccountId: "sa1",
        serviceAccountName: "bot",
        grants: [{ bindingId: "b1", roleId: "r1", resourceType: "ORGANIZATION", resourceId: "o1" }],
      },
      initialApiKeyState,
      "unprocessable-entity",
      /space/,
    );
  });
});

describe("revoke", () => {
  it("revokes an active key; a revoked key is a no-op (spec endpoint 4, rule 2)", () => {
    const cmd: ApiKeyCommand = { type: "RevokeKey", id: "k1", now };
    expect(decideApiKey(cmd, active)).toEqual([
      {
        streamId: "apikey-k1",
        type: "ApiKeyRevoked",
        data: { id: "k1", revoked_at: now.toISOString() },
      },
    ]);
    expect(decideApiKey(cmd, { ...active, status: "REVOKED" })).toEqual([]);
    rejects(cmd, initialApiKeyState, "resource-not-found", /not found/);
  });
});

describe("refresh", () => {
  it("grace period 0..86400 s; the old secret never outlives the key", () => {
    expect(decideApiKey(refresh(), active)[0]!.data.previous_secret_valid_until).toBeNull();
    expect(
      decideApiKey(refresh({ gracePeriodSeconds: 1 }), active)[0]!.data.previous_secret_valid_until,
    ).toBe(later(1000).toISOString());
    expect(
      decideApiKey(refresh({ gracePeriodSeconds: 86_400 }), active)[0]!.data
        .previous_secret_valid_until,
    ).toBe(later(86_400_000).toISOString());
    rejects(refresh({ gracePeriodSeconds: 86_401 }), active, "unprocessable-entity", /86400/);
    rejects(refresh({ gracePeriodSeconds: -1 }), active, "unprocessable-entity", /86400/);
    const bounded = { ...active, expiresAt: later(10_000) };
    const e = decideApiKey(
      refresh({ gracePeriodSeconds: 60, expiresAt: later(5_000) }),
      bounded,
    )[0]!;
    expect(e.data.previous_secret_valid_until).toBe(later(10_000).toISOString());
  });

  it("expiry: required when the key has one, never later than it, always in the future", () => {
    const bounded = { ...active, expiresAt: later(10_000) };
    rejects(refresh(), bounded, "unprocessable-entity", /required/);
    rejects(refresh({ expiresAt: later(20_000) }), bounded, "unprocessable-entity", /later/);
    expect(decideApiKey(refresh({ expiresAt: later(10_000) }), bounded)).toHaveLength(1);
    rejects(refresh({ expiresAt: now }), active, "unprocessable-entity", /future/);
    expect(decideApiKey(refresh({ expiresAt: later(1) }), active)[0]!.data.expires_at).toBe(
      later(1).toISOString(),
    );
  });

  it("a revoked or expired key cannot be refreshed", () => {
    rejects(refresh(), { ...active, status: "REVOKED" }, "unprocessable-entity", /revoked/);
    rejects(
      refresh({ expiresAt: later(1) }),
      { ...active, expiresAt: now },
      "unprocessable-entity",
      /expired/,
    );
  });
});
