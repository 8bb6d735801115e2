import type { Decider } from "@argus/eventstore";
import { LIMITS, type ApiKeyCreated, type ApiKeyEvent } from "@argus/contracts";
import { DomainError, notFound, unreachable } from "@argus/platform";
import { refreshedKey, type RefreshKey } from "./apiKeyRefreshRules.ts";

/** API key lifecycle as a pure decider: ids, `now` and the redacted key come in the command. */

const KEY_NAME_MAX = LIMITS.API_KEY_NAME_MAX;
const KEY_DESCRIPTION_MAX = 1000;

export type ApiKeyState =
  { status: "none" } | { status: "ACTIVE" | "REVOKED"; id: string; expiresAt: Date | null };

export interface KeyFields {
  id: string;
  accountId: string;
  createdByUserId: string;
  /** Whether the creating user is still live, read (and share-locked) in the transaction. */
  creatorActive: boolean;
  name: string;
  description: string;
  expiresAt: Date | null;
  redactedKey: string;
  now: Date;
}

export type ApiKeyCommand =
  | ({ type: "CreateUserKey" } & KeyFields)
  /** Its service account (ServiceAccountCreated and grants) is decided first, on its own stream. */
  | ({ type: "CreateServiceKey"; serviceAccountId: string } & KeyFields)
  | { type: "RevokeKey"; now: Date }
  /** Its rules are apiKeyRefreshRules.ts's. */
  | RefreshKey;

const chars = (s: string): number => [...s].length;
const invalid = (detail: string) => new DomainError("unprocessable-entity", detail);

function keyCreated(c: KeyFields, serviceAccountId: string | null): ApiKeyCreated {
  if (!c.creatorActive)
    throw new DomainError("authentication-required", "the key's user was deleted");
  if (c.name.trim().length === 0) throw invalid("name must not be empty");
  if (chars(c.name) > KEY_NAME_MAX)
    throw invalid(`name must be at most ${KEY_NAME_MAX} characters`);
  if (chars(c.description) > KEY_DESCRIPTION_MAX)
    throw invalid(`description must be at most ${KEY_DESCRIPTION_MAX} characters`);
  if (c.expiresAt && c.expiresAt.getTime() <= c.now.getTime())
    throw invalid("expires_at must be in the future");
  return {
    type: "ApiKeyCreated",
    data: {
      id: c.id,
      account_id: c.accountId,
      key_type: serviceAccountId === null ? "USER" : "SERVICE",
      user_id: serviceAccountId === null ? c.createdByUserId : null,
      service_account_id: serviceAccountId,
      created_by_user_id: c.createdByUserId,
      name: c.name,
      description: c.description,
      redacted_key: c.redactedKey,
      created_at: c.now.toISOString(),
      expires_at: c.expiresAt?.toISOString() ?? null,
    },
  };
}

function decide(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  if (command.type === "CreateUserKey" || command.type === "CreateServiceKey") {
    if (state.status !== "none")
      throw new DomainError("resource-conflict", "API key already exists");
    return [
      keyCreated(command, command.type === "CreateUserKey" ? null : command.serviceAccountId),
    ];
  }
  if (state.status === "none") throw notFound("API key");
  switch (command.type) {
    case "RevokeKey":
      // Revoking a revoked key is a no-op that still succeeds (spec endpoint 4, rule 2).
      if (state.status === "REVOKED") return [];
      return [
        { type: "ApiKeyRevoked", data: { id: state.id, revoked_at: command.now.toISOString() } },
      ];
    case "RefreshKey":
      if (state.status === "REVOKED") throw invalid("a revoked API key cannot be refreshed");
      return [refreshedKey(command, state)];
    default:
      return unreachable(command);
  }
}

function evolve(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case "ApiKeyCreated": {
      const { id, expires_at } = event.data;
      return { status: "ACTIVE", id, expiresAt: expires_at === null ? null : new Date(expires_at) };
    }
    case "ApiKeyRevoked":
      return state.status === "none" ? state : { ...state, status: "REVOKED" };
    case "ApiKeyRefreshed": {
      const { expires_at } = event.data;
      if (state.status === "none") return state;
      return { ...state, expiresAt: expires_at === null ? null : new Date(expires_at) };
    }
    default:
      return unreachable(event);
  }
}

/** An API key: created once, refreshed while active and unexpired, revoked (idempotently). */
export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
