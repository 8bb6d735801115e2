import { DomainError } from "@argus/platform";

/** API key lifecycle as pure deciders: ids, `now` and the redacted key come in the command. */

export const KEY_NAME_MAX = 255;
export const KEY_DESCRIPTION_MAX = 1000;
export const GRACE_PERIOD_MAX_SECONDS = 86_400;

export type KeyType = "USER" | "SERVICE";
/** Predefined role names usable for a service account (ANNOTATOR is not, per the public API). */
export type ServiceRoleName = "ADMIN" | "MEMBER" | "READ_ONLY";

export interface RoleGrant {
  bindingId: string;
  roleId: string;
  resourceType: "ORGANIZATION" | "SPACE";
  resourceId: string;
}

interface KeyFields {
  id: string;
  accountId: string;
  createdByUserId: string;
  name: string;
  description: string;
  expiresAt: Date | null;
  redactedKey: string;
  now: Date;
}

export interface CreateUserKey extends KeyFields {
  type: "CreateUserKey";
}

export interface CreateServiceKey extends KeyFields {
  type: "CreateServiceKey";
  serviceAccountId: string;
  serviceAccountName: string;
  grants: RoleGrant[];
}

export interface RevokeKey {
  type: "RevokeKey";
  id: string;
  now: Date;
}

export interface RefreshKey {
  type: "RefreshKey";
  id: string;
  /** null: keep the key unbounded. */
  expiresAt: Date | null;
  gracePeriodSeconds: number;
  redactedKey: string;
  now: Date;
}

export type ApiKeyCommand = CreateUserKey | CreateServiceKey | RevokeKey | RefreshKey;

export interface ApiKeyState {
  exists: boolean;
  status: "ACTIVE" | "REVOKED";
  expiresAt: Date | null;
}

export const initialApiKeyState: ApiKeyState = { exists: false, status: "ACTIVE", expiresAt: null };

/** An event and the stream it belongs to (a service key also creates its service account). */
export interface ApiKeyEvent {
  streamId: string;
  type: string;
  data: Record<string, unknown>;
}

const chars = (s: string): number => [...s].length;

function requireKeyFields(c: KeyFields): void {
  if (c.name.trim().length === 0)
    throw new DomainError("unprocessable-entity", "name must not be empty");
  if (chars(c.name) > KEY_NAME_MAX)
    throw new DomainError(
      "unprocessable-entity",
      `name must be at most ${KEY_NAME_MAX} characters`,
    );
  if (chars(c.description) > KEY_DESCRIPTION_MAX)
    throw new DomainError(
      "unprocessable-entity",
      `description must be at most ${KEY_DESCRIPTION_MAX} characters`,
    );
  if (c.expiresAt && c.expiresAt.getTime() <= c.now.getTime())
    throw new DomainError("unprocessable-entity", "expires_at must be in the future");
}

function keyCreated(c: KeyFields, keyType: KeyType, serviceAccountId: string | null): ApiKeyEvent {
  return {
    streamId: `apikey-${c.id}`,
    type: "ApiKeyCreated",
    data: {
      id: c.id,
      account_id: c.accountId,
      key_type: keyType,
      user_id: keyType === "USER" ? c.createdByUserId : null,
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

/** Pure: the events a command produces, or the rule it breaks. */
export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case "CreateUserKey": {
      if (state.exists) throw new DomainError("resource-conflict", "API key already exists");
      requireKeyFields(command);
      return [keyCreated(command, "USER", null)];
    }
    case "CreateServiceKey": {
      if (state.exists) throw new DomainError("resource-conflict", "API key already exists");
      requireKeyFields(command);
      if (!command.grants.some((g) => g.resourceType === "SPACE"))
        throw new DomainError("unprocessable-entity", "a service key needs at least one space");
      const sa = `serviceaccount-${command.serviceAccountId}`;
      const at = command.now.toISOString();
      return [
        {
          streamId: sa,
          type: "ServiceAccountCreated",
          data: {
            id: command.serviceAccountId,
            account_id: command.accountId,
            name: command.serviceAccountName,
            created_by_user_id: command.createdByUserId,
            created_at: at,
          },
        },
        ...command.grants.map((g) => ({
          streamId: sa,
          type: "ServiceAccountRoleGranted",
          data: {
            id: g.bindingId,
            account_id: command.accountId,
            service_account_id: command.serviceAccountId,
            role_id: g.roleId,
            resource_type: g.resourceType,
            resource_id: g.resourceId,
            created_at: at,
          },
        })),
        keyCreated(command, "SERVICE", command.serviceAccountId),
      ];
    }
    case "RevokeKey": {
      if (!state.exists) throw new DomainError("resource-not-found", "API key not found");
      // Revoking a revoked key is a no-op that still succeeds (spec endpoint 4, rule 2).
      if (state.status === "REVOKED") return [];
      return [
        {
          streamId: `apikey-${command.id}`,
          type: "ApiKeyRevoked",
          data: { id: command.id, revoked_at: command.now.toISOString() },
        },
      ];
    }
    case "RefreshKey": {
      if (!state.exists) throw new DomainError("resource-not-found", "API key not found");
      if (state.status === "REVOKED")
        throw new DomainError("unprocessable-entity", "a revoked API key cannot be refreshed");
      const now = command.now.getTime();
      if (state.expiresAt && state.expiresAt.getTime() <= now)
        throw new DomainError("unprocessable-entity", "an expired API key cannot be refreshed");
      if (state.expiresAt && !command.expiresAt)
        throw new DomainError(
          "unprocessable-entity",
          "expires_at is required when the key has an expiry (omitting it would make the key unbounded)",
        );
      if (command.expiresAt && command.expiresAt.getTime() <= now)
        throw new DomainError("unprocessable-entity", "expires_at must be in the future");
      if (state.expiresAt && command.expiresAt && command.expiresAt > state.expiresAt)
        throw new DomainError(
          "unprocessable-entity",
          "expires_at must not be later than the key's current expiry; create a new key instead",
        );
      const grace = command.gracePeriodSeconds;
      if (!Number.isInteger(grace) || grace < 0 || grace > GRACE_PERIOD_MAX_SECONDS)
        throw new DomainError(
          "unprocessable-entity",
          `grace_period_seconds must be an integer from 0 to ${GRACE_PERIOD_MAX_SECONDS}`,
        );
      // The old secret lives on for the grace period, but never past the key's own expiry.
      let graceUntil: Date | null = grace > 0 ? new Date(now + grace * 1000) : null;
      if (graceUntil && state.expiresAt && state.expiresAt < graceUntil)
        graceUntil = state.expiresAt;
      return [
        {
          streamId: `apikey-${command.id}`,
          type: "ApiKeyRefreshed",
          data: {
            id: command.id,
            redacted_key: command.redactedKey,
            expires_at: command.expiresAt?.toISOString() ?? null,
            previous_secret_valid_until: graceUntil?.toISOString() ?? null,
            refreshed_at: command.now.toISOString(),
          },
        },
      ];
    }
  }
}
