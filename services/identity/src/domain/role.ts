import { DomainError, isPermission } from "@argus/platform";
import { requireDescription, requireName } from "./rules.ts";

export const ROLE_NAME_MAX = 255;
export const ROLE_DESCRIPTION_MAX = 1000;

export interface RoleState {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  isPredefined: boolean;
  bindingCount: number;
}

export type RoleEvent =
  | {
      type: "RoleCreated";
      data: {
        id: string;
        account_id: string;
        name: string;
        description: string;
        permissions: string[];
        created_at: string;
      };
    }
  | {
      type: "RoleUpdated";
      data: {
        id: string;
        name: string;
        description: string;
        permissions: string[];
        updated_at: string;
      };
    }
  | { type: "RoleDeleted"; data: { id: string } };

/** At least one permission, each a spec identifier, no duplicates kept. */
function requirePermissions(permissions: readonly string[]): string[] {
  if (permissions.length === 0)
    throw new DomainError("invalid-request", "at least one permission is required");
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length > 0)
    throw new DomainError("invalid-request", `unknown permissions: ${unknown.join(", ")}`);
  return [...new Set(permissions)].sort();
}

const immutable = () =>
  new DomainError("access-forbidden", "predefined roles cannot be updated or deleted");

export function decideCreateRole(c: {
  id: string;
  accountId: string;
  name: string;
  description: string;
  permissions: readonly string[];
  now: Date;
}): RoleEvent[] {
  requireName(c.name, ROLE_NAME_MAX);
  requireDescription(c.description, ROLE_DESCRIPTION_MAX);
  return [
    {
      type: "RoleCreated",
      data: {
        id: c.id,
        account_id: c.accountId,
        name: c.name.trim(),
        description: c.description,
        permissions: requirePermissions(c.permissions),
        created_at: c.now.toISOString(),
      },
    },
  ];
}

export function decideUpdateRole(
  c: {
    name: string | undefined;
    description: string | undefined;
    permissions: readonly string[] | undefined;
    now: Date;
  },
  state: RoleState,
): RoleEvent[] {
  if (state.isPredefined) throw immutable();
  if (c.name === undefined && c.description === undefined && c.permissions === undefined)
    throw new DomainError(
      "invalid-request",
      "at least one of name, description, permissions is required",
    );
  if (c.name !== undefined) requireName(c.name, ROLE_NAME_MAX);
  if (c.description !== undefined) requireDescription(c.description, ROLE_DESCRIPTION_MAX);
  return [
    {
      type: "RoleUpdated",
      data: {
        id: state.id,
        name: c.name?.trim() ?? state.name,
        description: c.description ?? state.description,
        permissions:
          c.permissions === undefined ? state.permissions : requirePermissions(c.permissions),
        updated_at: c.now.toISOString(),
      },
    },
  ];
}

export function decideDeleteRole(state: RoleState): RoleEvent[] {
  if (state.isPredefined) throw immutable();
  if (state.bindingCount > 0)
    throw new DomainError(
      "resource-conflict",
      `the role is still bound ${state.bindingCount} time(s); delete its role bindings first`,
    );
  return [{ type: "RoleDeleted", data: { id: state.id } }];
}
