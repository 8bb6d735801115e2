import type { Decider } from "@argus/eventstore";
import {
  SPACE_SETTING_KEYS,
  type SpaceEvent,
  type SpaceSettings,
  type SpaceUpdated,
} from "@argus/contracts";
import { DomainError, unreachable, type Lifecycle } from "@argus/platform";
import { requireDescription, requireName } from "../shared/nameRules.ts";

const SPACE_NAME_MAX = 255;
const SPACE_DESCRIPTION_MAX = 1000;

/** What a space is created with, and holds while live. */
interface SpaceFields {
  id: string;
  accountId: string;
  organizationId: string;
  name: string;
  description: string;
  isPrivate: boolean;
}

export type SpaceState = Lifecycle<{ settings: SpaceSettings } & SpaceFields>;

/** The settings with `patch` applied (its keys replace), in one key order, for comparison. */
function patched(settings: SpaceSettings, patch: SpaceSettings): SpaceSettings {
  const merged: Record<string, unknown> = { ...settings, ...patch };
  return Object.fromEntries(
    SPACE_SETTING_KEYS.filter((k) => merged[k] !== undefined).map((k) => [k, merged[k]]),
  );
}

export type SpaceCommand =
  | ({ type: "CreateSpace"; now: Date } & SpaceFields)
  /** `undefined` leaves a field as it is; changing nothing appends nothing. */
  | {
      type: "UpdateSpace";
      name?: string | undefined;
      description?: string | undefined;
      isPrivate?: boolean | undefined;
      /** The settings to set (present keys only; null clears the nullable ones). */
      settings?: SpaceSettings | undefined;
      now: Date;
    }
  /** With its organization: a space deleted meanwhile is nothing more to do, not a 404. */
  | { type: "DeleteSpace"; now: Date; withOrganization?: boolean };

const gone = () => new DomainError("resource-not-found", "space not found");

function decide(command: SpaceCommand, state: SpaceState): SpaceEvent[] {
  switch (command.type) {
    case "CreateSpace": {
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "space already exists");
      requireName(command.name, SPACE_NAME_MAX);
      requireDescription(command.description, SPACE_DESCRIPTION_MAX);
      return [
        {
          type: "SpaceCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            organization_id: command.organizationId,
            name: command.name,
            description: command.description,
            is_private: command.isPrivate,
            created_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "UpdateSpace": {
      if (state.status !== "live") throw gone();
      const { name, description, isPrivate } = command;
      const patch = command.settings ?? {};
      if (
        name === undefined &&
        description === undefined &&
        isPrivate === undefined &&
        Object.keys(patch).length === 0
      )
        throw new DomainError("invalid-request", "at least one field to update is required");
      if (name !== undefined) requireName(name, SPACE_NAME_MAX);
      if (description !== undefined) requireDescription(description, SPACE_DESCRIPTION_MAX);
      const next: Omit<SpaceUpdated["data"], "updated_at"> = {
        id: state.id,
        name: name ?? state.name,
        description: description ?? state.description,
        is_private: isPrivate ?? state.isPrivate,
        settings: patched(state.settings, patch),
      };
      if (
        next.name === state.name &&
        next.description === state.description &&
        next.is_private === state.isPrivate &&
        JSON.stringify(next.settings) === JSON.stringify(patched(state.settings, {}))
      )
        return [];
      return [{ type: "SpaceUpdated", data: { ...next, updated_at: command.now.toISOString() } }];
    }
    case "DeleteSpace": {
      if (state.status === "deleted" && command.withOrganization) return [];
      if (state.status !== "live") throw gone();
      return [
        {
          type: "SpaceDeleted",
          data: {
            id: state.id,
            account_id: state.accountId,
            organization_id: state.organizationId,
            deleted_at: command.now.toISOString(),
          },
        },
      ];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: SpaceState, event: SpaceEvent): SpaceState {
  switch (event.type) {
    case "SpaceCreated": {
      const d = event.data;
      return {
        status: "live",
        id: d.id,
        accountId: d.account_id,
        organizationId: d.organization_id,
        name: d.name,
        description: d.description,
        isPrivate: d.is_private,
        settings: {},
      };
    }
    case "SpaceUpdated":
      if (state.status !== "live") return state;
      return {
        ...state,
        name: event.data.name,
        description: event.data.description,
        isPrivate: event.data.is_private,
        settings: event.data.settings ?? state.settings,
      };
    case "SpaceDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** A space: created once, updated while live, deleted once. */
export const spaceDecider: Decider<SpaceState, SpaceCommand, SpaceEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
