import { DomainError, isAccountAdmin, type Principal } from "@argus/platform";

/**
 * Account-wide permissions (USER_UPDATE, ROLE_READ, ...) can reach a non-admin only through a
 * custom role bound somewhere: holding it in any space counts.
 */
export function holdsAnywhere(p: Principal, permission: string): boolean {
  return (
    isAccountAdmin(p) ||
    Object.values(p.spacePermissions).some((s) => s.permissions.includes(permission))
  );
}

export function requireAnywhere(p: Principal, permission: string, what: string): void {
  if (!holdsAnywhere(p, permission))
    throw new DomainError(
      "access-forbidden",
      `${what} requires the account admin role or ${permission}`,
    );
}

export function requireAdmin(p: Principal, what: string): void {
  if (!isAccountAdmin(p))
    throw new DomainError("access-forbidden", `${what} requires the account admin role`);
}
