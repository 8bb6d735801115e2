import type { Decider } from "@argus/eventstore";
import type { RoleEvent } from "@argus/contracts";
import {
  DomainError,
  PREDEFINED_ROLES,
  isPermission,
  unreachable,
  type Lifecycle,
} from "@argus/platform";
import { requireDescription, requireName } from "../shared/nameRules.ts";

const ROLE_NAME_MAX = 255;
const ROLE_DESCRIPTION_MAX = 1000;

export type RoleState = Lifecycle<{
  id: string;
  name: string;
  description: string;
  permissions: string[];
}>;

export type RoleCommand =
  | {
      type: "CreateRole";
      id: string;
      accountId: string;
      name: string;
      description: string;
      permissions: readonly string[];
      now: Date;
    }
  /** `undefined` leaves a field as it is. */
  | {
      type: "UpdateRole";
      id: string;
      name: string | undefined;
      description: string | undefined;
      permissions: readonly string[] | undefined;
      now: Date;
    }
  /** `bindingCount`: the role's bindings, counted in the command's transaction. */
  | { type: "DeleteRole"; id: string; bindingCount: number };

// Predefined roles are code (platform permissions.ts), not streams: never changed by a command.
const PREDEFINED_IDS: ReadonlySet<string> = new Set(PREDEFINED_ROLES.map((r) => r.id));

const immutable = () =>
  new DomainError("access-forbidden", "predefined roles cannot be updated or deleted");
const gone = () => new DomainError("resource-not-found", "role not found");

/** At least one permission, each a spec identifier, no duplicates kept. */
function requirePermissions(permissions: readonly string[]): string[] {
  if (permissions.length === 0)
    throw new DomainError("invalid-request", "at least one permission is required");
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0)
    throw new DomainError("invalid-request", `unknown permissions: ${unknown.join(", ")}`);
  return [...new Set(permissions)].sort();
}

// A name taken in the account is the projection's unique index, in the same transaction.
function decide(command: RoleCommand, state: RoleState): RoleEvent[] {
  if (command.type === "CreateRole") {
    if (state.status !== "none") throw new DomainError("resource-conflict", "role already exists");
    requireName(command.name, ROLE_NAME_MAX);
    requireDescription(command.description, ROLE_DESCRIPTION_MAX);
    const { id, accountId, name, description, now } = command;
    const permissions = requirePermissions(command.permissions);
    const created_at = now.toISOString();
    const data = {
      id,
      account_id: accountId,
      name: name.trim(),
      description,
      permissions,
      created_at,
    };
    return [{ type: "RoleCreated", data }];
  }
  if (PREDEFINED_IDS.has(command.id)) throw immutable();
  if (state.status !== "live") throw gone();
  switch (command.type) {
    case "UpdateRole": {
      const { name, description, permissions } = command;
      if (name === undefined && description === undefined && permissions === undefined)
        throw new DomainError(
          "invalid-request",
          "at least one of name, description, permissions is required",
        );
      if (name !== undefined) requireName(name, ROLE_NAME_MAX);
      if (description !== undefined) requireDescription(description, ROLE_DESCRIPTION_MAX);
      return [
        {
          type: "RoleUpdated",
          data: {
            id: state.id,
            name: name?.trim() ?? state.name,
            description: description ?? state.description,
            permissions:
              permissions === undefined ? state.permissions : requirePermissions(permissions),
            updated_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "DeleteRole":
      if (command.bindingCount > 0)
        throw new DomainError(
          "resource-conflict",
          `the role is still bound ${command.bindingCount} time(s); delete its role bindings first`,
        );
      return [{ type: "RoleDeleted", data: { id: state.id } }];
    default:
      return unreachable(command);
  }
}

function evolve(state: RoleState, event: RoleEvent): RoleState {
  switch (event.type) {
    case "RoleCreated":
    case "RoleUpdated": {
      const { id, name, description, permissions } = event.data;
      if (event.type === "RoleUpdated" && state.status !== "live") return state;
      return { status: "live", id, name, description, permissions };
    }
    case "RoleDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** A custom role: created once, updated while live, deleted once and only when unbound. */
export const roleDecider: Decider<RoleState, RoleCommand, RoleEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
