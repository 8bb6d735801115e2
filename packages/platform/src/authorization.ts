import { AccountRole, type Principal } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";

export function isAccountAdmin(p: Principal): boolean {
  return p.accountRole === AccountRole.ACCOUNT_ROLE_ADMIN;
}

/** Account admins may do everything in their account; everyone else needs the permission in that space. */
export function hasSpacePermission(p: Principal, spaceId: string, permission: string): boolean {
  return (
    isAccountAdmin(p) || (p.spacePermissions[spaceId]?.permissions.includes(permission) ?? false)
  );
}

export function isSpaceMember(p: Principal, spaceId: string): boolean {
  return spaceId in p.spacePermissions;
}

export function requireSpacePermission(p: Principal, spaceId: string, permission: string): void {
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
  permission: string,
): boolean {
  if (isAccountAdmin(p)) return true;
  const restricted = p.restrictedProjects[projectId];
  if (restricted) return restricted.permissions.includes(permission);
  return hasSpacePermission(p, spaceId, permission);
}
