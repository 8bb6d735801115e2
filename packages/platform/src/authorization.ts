import { AccountRole, type Principal } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";
import type { Permission } from "./permissions.ts";

export function isAccountAdmin(p: Principal): boolean {
  return p.accountRole === AccountRole.ACCOUNT_ROLE_ADMIN;
}

/** Account admins may do everything in their account; everyone else needs the permission in that space. */
export function hasSpacePermission(p: Principal, spaceId: string, permission: Permission): boolean {
  return (
    isAccountAdmin(p) || (p.spacePermissions[spaceId]?.permissions.includes(permission) ?? false)
  );
}

export function isSpaceMember(p: Principal, spaceId: string): boolean {
  return spaceId in p.spacePermissions;
}

export function requireSpacePermission(
  p: Principal,
  spaceId: string,
  permission: Permission,
): void {
  if (!hasSpacePermission(p, spaceId, permission)) {
    throw new DomainError("access-forbidden", `missing permission ${permission} in this space`);
  }
}

/**
 * A restricted project is reachable only through an explicit PROJECT binding (or by account
 * admins); any other project follows the permissions of its space.
 */
export function hasProjectPermission(
  p: Principal,
  spaceId: string,
  projectId: string,
  permission: Permission,
): boolean {
  if (isAccountAdmin(p)) return true;
  const restricted = p.restrictedProjects[projectId];
  if (restricted) return restricted.permissions.includes(permission);
  return hasSpacePermission(p, spaceId, permission);
}

/**
 * Account-wide permissions (USER_UPDATE, ROLE_READ, ...) reach a non-admin only through a
 * custom role bound somewhere: holding one in any space counts.
 */
export function holdsAnywhere(p: Principal, permission: Permission): boolean {
  return (
    isAccountAdmin(p) ||
    Object.values(p.spacePermissions).some((s) => s.permissions.includes(permission))
  );
}

/** 403 unless the caller holds `permission` somewhere (see `holdsAnywhere`). */
export function requireAnywhere(p: Principal, permission: Permission, what: string): void {
  if (!holdsAnywhere(p, permission))
    throw new DomainError(
      "access-forbidden",
      `${what} requires the account admin role or ${permission}`,
    );
}

/** 403 unless the caller is an account admin; `what` names the action in the detail. */
export function requireAccountAdmin(p: Principal, what: string): void {
  if (!isAccountAdmin(p))
    throw new DomainError("access-forbidden", `${what} requires the account admin role`);
}

/** 403 unless the caller holds `permission` in the space; `what` names the action. */
export function requireSpacePermissionTo(
  p: Principal,
  spaceId: string,
  permission: Permission,
  what: string,
): void {
  if (!hasSpacePermission(p, spaceId, permission))
    throw new DomainError("access-forbidden", `${what} requires ${permission}`);
}

/**
 * Private spaces are invisible to callers bound nowhere in them who are not account admins
 * (organization admins hold permissions in every space of their organizations).
 */
export function canSeeSpace(p: Principal, space: { id: string; isPrivate: boolean }): boolean {
  return !space.isPrivate || isAccountAdmin(p) || space.id in p.spacePermissions;
}

/**
 * Where a resource lives, as authorization sees it: its account and space and, for a project,
 * its id (a restricted project answers only to its explicit bindings).
 */
export interface ResourcePlace {
  accountId: string;
  spaceId: string;
  projectId?: string | undefined;
}

/** How a kind of resource is named in problems and which permission reads it. */
export interface ResourceAccess {
  label: string;
  read: Permission;
}

/**
 * The one rule for acting on a space-owned resource: a missing one, another account's and one
 * the caller may not read are the same 404 (nothing leaks); readable without `permission`
 * (default: the read permission) is 403.
 */
export function requireResourcePermission(
  p: Principal,
  place: ResourcePlace | undefined,
  access: ResourceAccess,
  permission: Permission = access.read,
): void {
  const holds = (r: ResourcePlace, perm: Permission) =>
    r.projectId === undefined
      ? hasSpacePermission(p, r.spaceId, perm)
      : hasProjectPermission(p, r.spaceId, r.projectId, perm);
  if (!place || place.accountId !== p.accountId || !holds(place, access.read))
    throw new DomainError("resource-not-found", `${access.label} not found`);
  if (!holds(place, permission))
    throw new DomainError(
      "access-forbidden",
      `missing permission ${permission} on this ${access.label}`,
    );
}
