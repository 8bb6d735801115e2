import type { AccountCommand } from "./accountDecider.ts";
import type { ApiKeyCommand } from "../apiKeys/apiKeyDecider.ts";
import type { OrganizationCommand } from "../organizations/organizationDecider.ts";
import type { SpaceCommand } from "../spaces/spaceDecider.ts";
import type { UserCommand } from "../users/userDecider.ts";

/**
 * Headless initialization (ARCHITECTURE §8): the first account, organization, space, admin
 * user and USER API key, from environment variables. Pure: given what exists, the commands
 * still to decide (each on its aggregate's stream) — so a restart with the same settings
 * decides nothing.
 */
export interface InitSettings {
  orgName: string;
  spaceName: string;
  adminEmail: string;
  adminName: string;
  redactedKey: string;
}

/** What exists, read in initialization's transaction. */
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

/** One command on one stream, in the order they must be decided. */
export type InitStep =
  | { aggregate: "account"; id: string; command: AccountCommand }
  | { aggregate: "organization"; id: string; command: OrganizationCommand }
  | { aggregate: "space"; id: string; command: SpaceCommand }
  | { aggregate: "user"; id: string; command: UserCommand }
  | { aggregate: "api_key"; id: string; command: ApiKeyCommand };

export function planInitialization(
  s: InitSettings,
  state: InitState,
  ids: InitIds,
  now: Date,
): InitStep[] {
  const steps: InitStep[] = [];
  const accountId = state.accountId ?? ids.account;
  const organizationId = state.organizationId ?? ids.organization;
  const userId = state.adminUserId ?? ids.user;
  if (!state.accountId)
    steps.push({
      aggregate: "account",
      id: accountId,
      command: { type: "CreateAccount", id: accountId, name: s.orgName, now },
    });
  if (!state.organizationId) {
    const command = { id: organizationId, accountId, name: s.orgName, description: "", now };
    steps.push({
      aggregate: "organization",
      id: organizationId,
      command: { type: "CreateOrganization", ...command },
    });
  }
  if (!state.spaceId) {
    const command = { id: ids.space, accountId, organizationId, name: s.spaceName, now };
    steps.push({
      aggregate: "space",
      id: ids.space,
      command: { type: "CreateSpace", ...command, description: "", isPrivate: false },
    });
  }
  if (!state.adminUserId)
    steps.push({
      aggregate: "user",
      id: userId,
      command: {
        type: "InviteUser",
        id: userId,
        accountId,
        name: s.adminName,
        email: s.adminEmail,
        accountRole: "admin",
        isDeveloper: true,
        inviteMode: "NONE",
        callerIsAdmin: true,
        callerMayInvite: true,
        now,
      },
    });
  // The key's hash never enters a command or an event: it goes to api_key_secrets alone.
  if (!state.keyExists)
    steps.push({
      aggregate: "api_key",
      id: ids.apiKey,
      command: {
        type: "CreateUserKey",
        id: ids.apiKey,
        accountId,
        createdByUserId: userId,
        creatorActive: true,
        name: "initial admin key",
        description: "created by headless initialization",
        expiresAt: null,
        redactedKey: s.redactedKey,
        now,
      },
    });
  return steps;
}
