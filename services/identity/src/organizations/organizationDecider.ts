import type { Decider } from "@argus/eventstore";
import type { OrganizationEvent } from "@argus/contracts";
import { DomainError, unreachable, type Lifecycle } from "@argus/platform";
import { requireDescription, requireName } from "../shared/nameRules.ts";

const ORGANIZATION_NAME_MAX = 255;
const ORGANIZATION_DESCRIPTION_MAX = 1000;

export type OrganizationState = Lifecycle<{ id: string; name: string; description: string }>;

export type OrganizationCommand =
  | {
      type: "CreateOrganization";
      id: string;
      accountId: string;
      name: string;
      description: string;
      now: Date;
    }
  /** `undefined` leaves a field as it is; changing nothing appends nothing. */
  | {
      type: "UpdateOrganization";
      name?: string | undefined;
      description?: string | undefined;
      now: Date;
    }
  /** Its spaces' SpaceDeleted events are decided on their own streams, before this one. */
  | { type: "DeleteOrganization"; now: Date };

const gone = () => new DomainError("resource-not-found", "organization not found");

// Uniqueness of the name per account is the projection's unique index, in the same transaction.
function decide(command: OrganizationCommand, state: OrganizationState): OrganizationEvent[] {
  switch (command.type) {
    case "CreateOrganization": {
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "organization already exists");
      requireName(command.name, ORGANIZATION_NAME_MAX);
      requireDescription(command.description, ORGANIZATION_DESCRIPTION_MAX);
      const { id, accountId, name, description, now } = command;
      return [
        {
          type: "OrganizationCreated",
          data: { id, account_id: accountId, name, description, created_at: now.toISOString() },
        },
      ];
    }
    case "UpdateOrganization": {
      if (state.status !== "live") throw gone();
      if (command.name === undefined && command.description === undefined)
        throw new DomainError("invalid-request", "at least one of name, description is required");
      if (command.name !== undefined) requireName(command.name, ORGANIZATION_NAME_MAX);
      if (command.description !== undefined)
        requireDescription(command.description, ORGANIZATION_DESCRIPTION_MAX);
      const name = command.name ?? state.name;
      const description = command.description ?? state.description;
      if (name === state.name && description === state.description) return [];
      const updated_at = command.now.toISOString();
      return [
        { type: "OrganizationUpdated", data: { id: state.id, name, description, updated_at } },
      ];
    }
    case "DeleteOrganization": {
      if (state.status !== "live") throw gone();
      const data = { id: state.id, deleted_at: command.now.toISOString() };
      return [{ type: "OrganizationDeleted", data }];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: OrganizationState, event: OrganizationEvent): OrganizationState {
  switch (event.type) {
    case "OrganizationCreated": {
      const { id, name, description } = event.data;
      return { status: "live", id, name, description };
    }
    case "OrganizationUpdated":
      if (state.status !== "live") return state;
      return { ...state, name: event.data.name, description: event.data.description };
    case "OrganizationDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An organization: created once, updated while live, deleted once (with its spaces). */
export const organizationDecider: Decider<
  OrganizationState,
  OrganizationCommand,
  OrganizationEvent
> = { initialState: { status: "none" }, evolve, decide };
