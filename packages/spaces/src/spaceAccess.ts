// Shared by every service that owns space-scoped resources: the one way such a resource is
// authorized (README "Roles and permissions", platform authorization.ts) on the facts identity
// answers, for single resources and for lists, so the catalog, dataset, ... decide alike.
import {
  actorMetadata,
  decideInSpace,
  hasProjectPermission,
  hasSpacePermission,
  isAccountAdmin,
  requireResourcePermission,
  requireSpacePermission,
  spaceRuleSql,
  type CallContext,
  type Permission,
  type ResourceAccess,
} from "@argus/platform";
import type { Spaces } from "./spaces.ts";

/** Creating in a space: an invisible space is 404, a visible one without the permission 403. */
export async function requireCreatable(
  spaces: Spaces,
  ctx: CallContext,
  spaceId: string,
  permission: Permission,
): Promise<void> {
  requireSpacePermission(ctx.principal, await spaces.get(ctx, spaceId), permission);
}

/** Where a space-scoped resource lives, before its space's facts are known. */
export interface RowPlace {
  accountId: string;
  spaceId: string;
  /** For a project: a restricted one answers only to its own bindings. */
  projectId?: string;
}

/**
 * The one rule for acting on a space-scoped resource (platform `requireResourcePermission`). The
 * space's facts are asked of identity only when the caller's grants alone cannot decide (an
 * organization admin, a member reading a public space, any non-admin on a project).
 */
export async function requirePermissionAt(
  spaces: Spaces,
  ctx: CallContext,
  place: RowPlace | undefined,
  access: ResourceAccess,
  permission: Permission = access.read,
): Promise<void> {
  const p = ctx.principal;
  if (!place || place.accountId !== p.accountId)
    return requireResourcePermission(p, undefined, access);
  const needsFacts =
    place.projectId !== undefined
      ? !isAccountAdmin(p)
      : [access.read, permission].some(
          (perm) => decideInSpace(p, place.spaceId, perm) === undefined,
        );
  // With definite answers from the grants, the facts are never read: these stand in.
  let space = { id: place.spaceId, organizationId: "", isPrivate: true };
  let restricted = false;
  if (needsFacts) {
    const facts = await spaces.facts(ctx, place.spaceId, place.projectId);
    if (!facts) return requireResourcePermission(p, undefined, access);
    space = facts.space;
    restricted = facts.projectRestricted;
  }
  const project = place.projectId === undefined ? undefined : { id: place.projectId, restricted };
  requireResourcePermission(p, { accountId: place.accountId, space, project }, access, permission);
}

/**
 * The spaces a list's space_id and space_name filters name, or null when it names none: a
 * space_id naming an invisible space is 404, a visible one without the read permission 403
 * (as ax-client's list operations say); a space_name narrows to the visible spaces so named.
 * What the caller may read among them is the list's own rule (listableSpaces).
 */
export async function filteredSpaceIds(
  spaces: Spaces,
  ctx: CallContext,
  filter: { spaceId: string; spaceName: string },
  read: Permission,
): Promise<string[] | null> {
  let ids: string[] | null = null;
  if (filter.spaceId) {
    // When the caller's grants alone decide (an account admin, a grant on that very space), the
    // service's own copy is enough to know the space exists: a page costs no call to identity.
    // A space the copy lacks yet (just created) or one only its facts decide asks identity.
    const decided =
      decideInSpace(ctx.principal, filter.spaceId, read) === true &&
      (await spaces.known(ctx, filter.spaceId));
    if (!decided) await requireCreatable(spaces, ctx, filter.spaceId, read);
    ids = [filter.spaceId];
  }
  if (filter.spaceName) {
    const named = new Set(await spaces.idsNamed(ctx, filter.spaceName));
    ids = ids ? ids.filter((id) => named.has(id)) : [...named];
  }
  return ids;
}

/**
 * The spaces a list may show, as a SQL condition on `column` (a space id) with parameters
 * from `firstParam` on: the spaces its filters name (filteredSpaceIds), and the rule of README
 * "Roles and permissions" in SQL: explicit grants by id, organization admins and public spaces
 * through the service's copy of identity's space facts.
 */
export async function listableSpaces(
  spaces: Spaces,
  ctx: CallContext,
  filter: { spaceId: string; spaceName: string },
  read: Permission,
  column: string,
  firstParam: number,
): Promise<{ sql: string; params: unknown[] }> {
  const p = ctx.principal;
  const ids = await filteredSpaceIds(spaces, ctx, filter, read);
  const rule = spaceRuleSql(p, read, "sf", firstParam + 1, SPACE_FACTS(column));
  return {
    sql: `($${firstParam}::uuid[] is null or ${column} = any($${firstParam}::uuid[])) and ${rule.sql}`,
    params: [ids, ...rule.params],
  };
}

/**
 * The rows of one list page, judged again on identity's facts as of now: the service's copy
 * (`space_facts`, `restricted_projects`) chose them and may lag a change that took a right
 * away (a space made private, a project restricted). Rows an explicit grant decides, and every
 * row for an account admin, need no look-up; the rest cost one call per page.
 */
export async function confirmListed<T>(
  spaces: Spaces,
  ctx: CallContext,
  rows: readonly T[],
  read: Permission,
  placeOf: (row: T) => { spaceId: string; projectId?: string },
): Promise<T[]> {
  const p = ctx.principal;
  if (isAccountAdmin(p) || rows.length === 0) return [...rows];
  const unsure = (row: T) => {
    const at = placeOf(row);
    return at.projectId !== undefined || decideInSpace(p, at.spaceId, read) === undefined;
  };
  const asked = rows.filter(unsure).map(placeOf);
  if (asked.length === 0) return [...rows];
  const facts = await spaces.factsOfMany(
    ctx,
    [...new Set(asked.map((a) => a.spaceId))],
    [...new Set(asked.flatMap((a) => (a.projectId === undefined ? [] : [a.projectId])))],
  );
  return rows.filter((row) => {
    if (!unsure(row)) return true;
    const at = placeOf(row);
    const space = facts.spaces.get(at.spaceId);
    if (!space) return false;
    return at.projectId === undefined
      ? hasSpacePermission(p, space, read)
      : hasProjectPermission(
          p,
          space,
          { id: at.projectId, restricted: facts.restricted.has(at.projectId) },
          read,
        );
  });
}

/** Rows whose space id is the SQL `spaceId`, judged through the service's copy of space facts. */
export const SPACE_FACTS = (spaceId: string) => ({ spaceId, factsTable: "space_facts" });

/** What every command on a space-owned resource carries: who did it, in which space. */
export const spaceMetadata = (ctx: CallContext, spaceId: string) => ({
  ...actorMetadata(ctx),
  space_id: spaceId,
});

/**
 * The user a resource names as its creator (`created_by_user_id`): the user of a USER key;
 * none ("") for a service account, which is no user (its public id is a ServiceAccount's), as
 * tasks, monitors and webhooks answer. The audit log keeps which service account it was.
 */
export function creatorUserId(ctx: CallContext): string {
  return ctx.principal.userId;
}
