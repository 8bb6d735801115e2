/**
 * Headless initialization (ARCHITECTURE §8): the first account, organization, space, admin
 * user and USER API key, from environment variables. Pure: given what exists, the events
 * still missing — so a restart with the same settings appends nothing.
 */
export interface InitSettings {
  orgName: string;
  spaceName: string;
  adminEmail: string;
  adminName: string;
  apiKeyHash: Buffer;
  redactedKey: string;
}

export interface InitState {
  accountId: string | null;
  organizationId: string | null;
  spaceId: string | null;
  adminUserId: string | null;
  keyExists: boolean;
}

export interface InitIds {
  account: string;
  organization: string;
  space: string;
  user: string;
  apiKey: string;
}

export interface InitEvent {
  streamId: string;
  type: "AccountCreated" | "OrganizationCreated" | "SpaceCreated" | "UserCreated" | "ApiKeyCreated";
  data: Record<string, unknown>;
}

export function decideInitialization(
  settings: InitSettings,
  state: InitState,
  ids: InitIds,
  now: Date,
): InitEvent[] {
  const at = now.toISOString();
  const events: InitEvent[] = [];
  const accountId = state.accountId ?? ids.account;
  if (!state.accountId) {
    events.push({
      streamId: `account-${accountId}`,
      type: "AccountCreated",
      data: { id: accountId, name: settings.orgName, created_at: at },
    });
  }
  const organizationId = state.organizationId ?? ids.organization;
  if (!state.organizationId) {
    events.push({
      streamId: `organization-${organizationId}`,
      type: "OrganizationCreated",
      data: {
        id: organizationId,
        account_id: accountId,
        name: settings.orgName,
        description: "",
        created_at: at,
      },
    });
  }
  if (!state.spaceId) {
    events.push({
      streamId: `space-${ids.space}`,
      type: "SpaceCreated",
      data: {
        id: ids.space,
        account_id: accountId,
        organization_id: organizationId,
        name: settings.spaceName,
        description: "",
        is_private: false,
        created_at: at,
      },
    });
  }
  const userId = state.adminUserId ?? ids.user;
  if (!state.adminUserId) {
    events.push({
      streamId: `user-${userId}`,
      type: "UserCreated",
      data: {
        id: userId,
        account_id: accountId,
        email: settings.adminEmail,
        name: settings.adminName,
        account_role: "admin",
        is_developer: true,
        status: "ACTIVE",
        created_at: at,
      },
    });
  }
  if (!state.keyExists) {
    events.push({
      streamId: `apikey-${ids.apiKey}`,
      type: "ApiKeyCreated",
      // The hash never enters an event: events are published; the hash stays in the projection.
      data: {
        id: ids.apiKey,
        account_id: accountId,
        key_type: "USER",
        user_id: userId,
        created_by_user_id: userId,
        name: "initial admin key",
        description: "created by headless initialization",
        redacted_key: settings.redactedKey,
        created_at: at,
        expires_at: null,
      },
    });
  }
  return events;
}
