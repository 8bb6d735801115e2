import {
  DomainError,
  canSeeSpace,
  hasSpacePermission,
  isAccountAdmin,
  predefinedRole,
  uuidv7,
  type Permission,
} from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type { Principal } from "@argus/proto/common/v1";
import type { OrganizationAssignment } from "@argus/proto/identity/v1/api_keys";
import type { RoleGrant, ServiceRoleName } from "./serviceAccountDecider.ts";
import { spaceFacts } from "../spaces/spaceRows.ts";
import { adminSpaces } from "./apiKeyReads.ts";
import { RANK, holdTargets, orgRanks } from "./serviceKeyTargets.ts";

/**
 * Turns a SERVICE key request's `organizations` into role grants for the new service account,
 * checking the public API's rules: at least one organization with at least one space, spaces
 * belong to the organization they are listed under, predefined roles (not ANNOTATOR) or, in
 * spaces, custom roles of the account,
 * SERVICE_KEY_CREATE in every space, and no role above the caller's own.
 */

function roleName(raw: string, fallback: ServiceRoleName, where: string): ServiceRoleName {
  const name = raw === "" ? fallback : raw;
  if (name === "ADMIN" || name === "MEMBER" || name === "READ_ONLY") return name;
  if (name === "ANNOTATOR")
    throw new DomainError(
      "unprocessable-entity",
      `the ANNOTATOR role is not valid for service keys (${where})`,
    );
  throw new DomainError("unprocessable-entity", `unknown role ${JSON.stringify(name)} (${where})`);
}

/**
 * A custom role of the account for a listed space, held until the key's transaction ends (a
 * role being deleted waits): "at or below the caller's own" is every permission of it held by
 * the caller in that space.
 */
async function customSpaceRole(
  client: Queryable,
  p: Principal,
  roleId: string,
  space: Parameters<typeof spaceFacts>[0],
): Promise<{ id: string; name: string }> {
  const res = await tracedQuery<{ id: string; name: string; permissions: string[] }>(
    client,
    "service key custom role",
    `select id, name, permissions from roles
      where id = $1 and account_id = $2 and not is_predefined for key share`,
    [roleId, p.accountId],
  );
  const role = res.rows[0];
  if (!role)
    throw new DomainError("unprocessable-entity", "the custom role does not exist in the account");
  const facts = spaceFacts(space);
  const above = role.permissions.filter(
    (perm) => !hasSpacePermission(p, facts, perm as Permission),
  );
  if (!isAccountAdmin(p) && above.length > 0)
    throw new DomainError(
      "unprocessable-entity",
      `custom role ${role.name} is above your own in the space (${above.join(", ")})`,
    );
  return { id: role.id, name: role.name };
}

export interface ResolvedAssignments {
  grants: RoleGrant[];
  /** The request with its defaults filled in, for the response's bot user. */
  organizations: OrganizationAssignment[];
}

export async function resolveAssignments(
  client: Queryable,
  p: Principal,
  organizations: readonly OrganizationAssignment[],
): Promise<ResolvedAssignments> {
  if (organizations.length === 0)
    throw new DomainError("unprocessable-entity", "a service key needs at least one organization");
  const orgIds = organizations.map((o) => o.organizationId);
  const spaceIds = organizations.flatMap((o) => o.spaces.map((s) => s.spaceId));
  if (new Set(orgIds).size !== orgIds.length)
    throw new DomainError("unprocessable-entity", "an organization is listed twice");
  if (new Set(spaceIds).size !== spaceIds.length)
    throw new DomainError("unprocessable-entity", "a space is listed twice");
  for (const o of organizations)
    if (o.spaces.length === 0)
      throw new DomainError("unprocessable-entity", "each organization needs at least one space");

  const { orgs, spaces } = await holdTargets(client, p.accountId, orgIds, spaceIds);
  const admin = isAccountAdmin(p);
  for (const id of orgIds)
    if (!orgs.has(id)) throw new DomainError("resource-not-found", "organization not found");
  for (const id of spaceIds) {
    const s = spaces.get(id);
    // A private space the caller is not in stays hidden.
    if (!s || !canSeeSpace(p, spaceFacts(s)))
      throw new DomainError("resource-not-found", "space not found");
  }

  const callerAdminSpaces = await adminSpaces(client, p, spaceIds);
  const callerOrgRank = admin ? new Map<string, number>() : await orgRanks(client, p, orgIds);
  const grants: RoleGrant[] = [];
  const resolved: OrganizationAssignment[] = [];
  for (const o of organizations) {
    const orgRole = roleName(o.role, "READ_ONLY", "organization role");
    if (!admin && RANK[orgRole] > Math.max(1, callerOrgRank.get(o.organizationId) ?? 0))
      throw new DomainError(
        "unprocessable-entity",
        `organization role ${orgRole} is above your own`,
      );
    // An organization binding makes the service account a member of the organization; only
    // ADMIN there propagates to every space of it (private ones included). It is made only when
    // asked for: by default a service key reaches the listed spaces and nothing else (least
    // privilege). A lower explicit organization role counts in the listed spaces: each is bound
    // to the higher of it and the space role (one binding per space).
    const listedOrgRole = o.role !== "" && orgRole !== "ADMIN" ? orgRole : undefined;
    if (o.role !== "")
      grants.push({
        bindingId: uuidv7(),
        roleId: predefinedRole(orgRole).id,
        resourceType: "ORGANIZATION",
        resourceId: o.organizationId,
      });
    const resolvedSpaces = [];
    for (const sa of o.spaces) {
      if (spaces.get(sa.spaceId)!.organization_id !== o.organizationId)
        throw new DomainError(
          "unprocessable-entity",
          "a space is listed under an organization it does not belong to",
        );
      if (!hasSpacePermission(p, spaceFacts(spaces.get(sa.spaceId)!), "SERVICE_KEY_CREATE"))
        throw new DomainError(
          "access-forbidden",
          "missing permission SERVICE_KEY_CREATE in a requested space",
        );
      if (sa.customRoleId) {
        const custom = await customSpaceRole(client, p, sa.customRoleId, spaces.get(sa.spaceId)!);
        grants.push({
          bindingId: uuidv7(),
          roleId: custom.id,
          resourceType: "SPACE",
          resourceId: sa.spaceId,
        });
        resolvedSpaces.push({
          spaceId: sa.spaceId,
          role: "",
          customRoleId: custom.id,
          customRoleName: custom.name,
        });
        continue;
      }
      const role = roleName(sa.role, "MEMBER", "space role");
      // Holding SERVICE_KEY_CREATE means at least MEMBER there; ADMIN needs the caller to be one.
      const callerRank = admin || callerAdminSpaces.has(sa.spaceId) ? 3 : 2;
      if (RANK[role] > callerRank)
        throw new DomainError("unprocessable-entity", `space role ${role} is above your own`);
      const bound = listedOrgRole && RANK[listedOrgRole] > RANK[role] ? listedOrgRole : role;
      grants.push({
        bindingId: uuidv7(),
        roleId: predefinedRole(bound).id,
        resourceType: "SPACE",
        resourceId: sa.spaceId,
      });
      resolvedSpaces.push({
        spaceId: sa.spaceId,
        role: bound,
        customRoleId: "",
        customRoleName: "",
      });
    }
    resolved.push({ organizationId: o.organizationId, role: orgRole, spaces: resolvedSpaces });
  }
  return { grants, organizations: resolved };
}
