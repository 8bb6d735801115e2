import { DomainError } from "@argus/platform";
import { requireDescription, requireName } from "./rules.ts";

export const SPACE_NAME_MAX = 255;
export const SPACE_DESCRIPTION_MAX = 1000;

export interface SpaceCreated {
  type: "SpaceCreated";
  data: {
    id: string;
    account_id: string;
    organization_id: string;
    name: string;
    description: string;
    is_private: boolean;
    created_at: string;
  };
}

export type SpaceEvent = SpaceCreated;

export interface SpaceState {
  exists: boolean;
}

export interface CreateSpace {
  type: "CreateSpace";
  id: string;
  accountId: string;
  organizationId: string;
  name: string;
  description: string;
  isPrivate: boolean;
  now: Date;
}

export type SpaceCommand = CreateSpace;

export const initialSpaceState: SpaceState = { exists: false };

/** Pure: the events a command produces, or the rule it breaks. */
export function decideSpace(command: SpaceCommand, state: SpaceState): SpaceEvent[] {
  switch (command.type) {
    case "CreateSpace": {
      if (state.exists) throw new DomainError("resource-conflict", "space already exists");
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
    default: {
      const never: never = command.type;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}

export function evolveSpace(state: SpaceState, event: SpaceEvent): SpaceState {
  switch (event.type) {
    case "SpaceCreated":
      return { ...state, exists: true };
    default: {
      const never: never = event.type;
      throw new Error(`unknown event ${String(never)}`);
    }
  }
}
