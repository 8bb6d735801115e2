import { AccountRole, type Grant, type Principal } from "@argus/proto/common/v1";
import { DomainError } from "./errors.ts";
import {
  ANNOTATOR_CEILING,
  MEMBER_PUBLIC_SPACE_PERMISSIONS,
  PREDEFINED_ROLES,
  predefinedRole,
  type Permission,
} from "./permissions.ts";

/*
 * README "Roles and permissions", decided from the principal (the subject's own grants) and
 * the facts of the one space or project at hand, so no rule needs a list of the account's
 * spaces:
 * - account admins may do everything in their account;
 * - a SPACE binding grants its role's permissions in that space;
 * - the predefined ADMIN role bound on an organization reaches every space of it, private
 *   ones included; other organization roles make the subject a member and grant nothing;
 * - an account member reads every public space (READ_ONLY);
 * - an annotator never holds more than the ANNOTATOR role, whatever is bound;
 * - a restricted project answers only to its explicit PROJECT bindings.
 * `spaceRuleSql` states the same rules for lists, as SQL over a table of spaces.
 */

/** What authorization needs to know of a space: the owning service reads it cheaply. */
export interface SpaceFacts {
  id: string;
  organizationId: string;
  isPrivate: boolean;
}

export function isAccountAdmin(p: Principal): boolean {
  return p.accountRole === AccountRole.ACCOUNT_ROLE_ADMIN;
}

/** The account's member role (MEMBER_UI_ONLY too, authorized as MEMBER), not an annotator's. */
export const isMember = (p: Principal) => p.accountRole === AccountRole.ACCOUNT_ROLE_MEMBER;
const isAnnotator = (p: Principal) => p.accountRole === AccountRole.ACCOUNT_ROLE_ANNOTATOR;

const PREDEFINED: ReadonlyMap<string, readonly string[]> = new Map(
  PREDEFINED_ROLES.map((r) => [r.id, r.permissions]),
);
const CEILING: ReadonlySet<string> = new Set(ANNOTATOR_CEILING);
const ADMIN_ROLE = predefinedRole("ADMIN");

/** A role's permissions as this principal holds them (an annotator's are capped). */
function roleGrants(p: Principal, roleId: string, permission: Permission): boolean {
  if (isAnnotator(p) && !CEILING.has(permission)) return false;
  const permissions = PREDEFINED.get(roleId) ?? p.customRoles[roleId]?.permissions ?? [];
  return permissions.includes(permission);
}

/** Whether any role bound on `resourceId` grants `permission`. */
const boundHolds = (
  p: Principal,
  grants: readonly Grant[],
  resourceId: string,
  permission: Permission,
) => grants.some((g) => g.resourceIds.includes(resourceId) && roleGrants(p, g.roleId, permission));

const isBound = (grants: readonly Grant[], resourceId: string) =>
  grants.some((g) => g.resourceIds.includes(resourceId));

/** The resources where a role that grants `permission` is bound. */
const holdingIds = (p: Principal, grants: readonly Grant[], permission: Permission) => [
  ...new Set(
    grants.filter((g) => roleGrants(p, g.roleId, permission)).flatMap((g) => g.resourceIds),
  ),
];

/** Organization admins hold the ADMIN role's permissions in every space of the organization. */
const orgAdminHolds = (p: Principal, permission: Permission) =>
  p.adminOrganizationIds.length > 0 && roleGrants(p, ADMIN_ROLE.id, permission);

const memberPublicHolds = (p: Principal, permission: Permission) =>
  isMember(p) && MEMBER_PUBLIC_SPACE_PERMISSIONS.includes(permission);

/**
 * Decides without the space's facts when they cannot change the answer: `true` or `false`,
 * or `undefined` when the organization or private flag of the space decide.
 */
export function decideInSpace(
  p: Principal,
  spaceId: string,
  permission: Permission,
): boolean | undefined {
  if (isAccountAdmin(p) || boundHolds(p, p.spaceGrants, spaceId, permission)) return true;
  return orgAdminHolds(p, permission) || memberPublicHolds(p, permission) ? undefined : false;
}

export function hasSpacePermission(
  p: Principal,
  space: SpaceFacts,
  permission: Permission,
): boolean {
  return (
    decideInSpace(p, space.id, permission) ??
    ((orgAdminHolds(p, permission) && p.adminOrganizationIds.includes(space.organizationId)) ||
      (memberPublicHolds(p, permission) && !space.isPrivate))
  );
}

/**
 * Private spaces are invisible to callers bound nowhere in them who are not account admins
 * (organization admins reach every space of their organizations).
 */
export function canSeeSpace(p: Principal, space: SpaceFacts): boolean {
  return (
    !space.isPrivate ||
    isAccountAdmin(p) ||
    isBound(p.spaceGrants, space.id) ||
    p.adminOrganizationIds.includes(space.organizationId)
  );
}

export function requireSpacePermission(
  p: Principal,
  space: SpaceFacts,
  permission: Permission,
): void {
  if (!hasSpacePermission(p, space, permission))
    throw new DomainError("access-forbidden", `missing permission ${permission} in this space`);
}

/** 403 unless the caller holds `permission` in the space; `what` names the action. */
export function requireSpacePermissionTo(
  p: Principal,
  space: SpaceFacts,
  permission: Permission,
  what: string,
): void {
  if (!hasSpacePermission(p, space, permission))
    throw new DomainError("access-forbidden", `${what} requires ${permission}`);
}

/** What authorization needs to know of a project: its space, and whether it is restricted. */
export interface ProjectFacts {
  id: string;
  restricted: boolean;
}

/**
 * A restricted project is reachable only through an explicit PROJECT binding (or by account
 * admins); any other project follows the permissions of its space.
 */
export function hasProjectPermission(
  p: Principal,
  space: SpaceFacts,
  project: ProjectFacts,
  permission: Permission,
): boolean {
  if (isAccountAdmin(p)) return true;
  if (project.restricted) return boundHolds(p, p.projectGrants, project.id, permission);
  return hasSpacePermission(p, space, permission);
}

/**
 * Account-wide permissions (USER_UPDATE, ROLE_READ, ...) reach a non-admin only through a
 * role bound somewhere: holding one through any space grant (or as an organization admin, or
 * as a member reading public spaces) counts.
 */
export function holdsAnywhere(p: Principal, permission: Permission): boolean {
  return (
    isAccountAdmin(p) ||
    p.spaceGrants.some((g) => roleGrants(p, g.roleId, permission)) ||
    orgAdminHolds(p, permission) ||
    memberPublicHolds(p, permission)
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

/** The spaces whose grants hold `permission` (explicit bindings only). */
function grantedSpaceIds(p: Principal, permission: Permission): string[] {
  return holdingIds(p, p.spaceGrants, permission);
}

/** The projects whose explicit bindings hold `permission` (they count where restricted). */
export function grantedProjectIds(p: Principal, permission: Permission): string[] {
  return holdingIds(p, p.projectGrants, permission);
}

/**
 * The rule of `hasSpacePermission` (or, with `permission` null, of `canSeeSpace`) as a SQL
 * condition, for lists: its parameters come from the principal alone, so they grow with the
 * caller's grants, never with the account. `$n` placeholders start at `firstParam`.
 * Over a table of spaces (columns `id`, `organization_id`, `is_private`) aliased `alias`; or,
 * with `via`, over rows whose space id is the SQL `via.spaceId`: explicit grants match by id,
 * the rest through `via.factsTable`, a copy of the spaces' facts, aliased `alias`.
 */
export function spaceRuleSql(
  p: Principal,
  permission: Permission | null,
  alias: string,
  firstParam: number,
  via?: { spaceId: string; factsTable: string },
): { sql: string; params: unknown[] } {
  if (isAccountAdmin(p)) return { sql: "true", params: [] };
  const [ids, orgs, publicToo] =
    permission === null
      ? [[...new Set(p.spaceGrants.flatMap((g) => g.resourceIds))], p.adminOrganizationIds, true]
      : [
          grantedSpaceIds(p, permission),
          orgAdminHolds(p, permission) ? p.adminOrganizationIds : [],
          memberPublicHolds(p, permission),
        ];
  const [a, b, c] = [firstParam, firstParam + 1, firstParam + 2];
  const byFacts = `${alias}.organization_id = any($${b}::uuid[]) or ($${c}::boolean and not ${alias}.is_private)`;
  const sql = via
    ? `(${via.spaceId} = any($${a}::uuid[]) or exists (select 1 from ${via.factsTable} ${alias} where ${alias}.id = ${via.spaceId} and (${byFacts})))`
    : `(${alias}.id = any($${a}::uuid[]) or ${byFacts})`;
  return { sql, params: [ids, orgs, publicToo] };
}

/**
 * Where a resource lives, as authorization sees it: its account and space (with the space's
 * facts) and, for a project, whether it is restricted.
 */
export interface ResourcePlace {
  accountId: string;
  space: SpaceFacts;
  project?: ProjectFacts | undefined;
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
    r.project === undefined
      ? hasSpacePermission(p, r.space, perm)
      : hasProjectPermission(p, r.space, r.project, perm);
  if (!place || place.accountId !== p.accountId || !holds(place, access.read))
    throw new DomainError("resource-not-found", `${access.label} not found`);
  if (!holds(place, permission))
    throw new DomainError(
      "access-forbidden",
      `missing permission ${permission} on this ${access.label}`,
    );
}
