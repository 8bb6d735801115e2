import {
  DomainError,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  type CallContext,
} from "@argus/platform";
import type { Spaces } from "./spaces.ts";

/**
 * Access to a space-owned catalog resource, as tag attachment decides it (resourceRefs.ts):
 * another account's, a missing one and one the caller may not read are the same 404;
 * readable but not changeable is 403.
 */
export function requireReadable<T extends { account_id: string; space_id: string }>(
  ctx: CallContext,
  row: T | undefined,
  read: string,
  label: string,
): asserts row is T {
  const p = ctx.principal;
  if (!row || row.account_id !== p.accountId || !hasSpacePermission(p, row.space_id, read))
    throw notFound(label);
}

export function requirePermission(ctx: CallContext, spaceId: string, permission: string): void {
  if (!hasSpacePermission(ctx.principal, spaceId, permission))
    throw new DomainError("access-forbidden", `missing permission ${permission} in this space`);
}

/** Creating in a space: an invisible space is 404, a visible one without the permission 403. */
export async function requireCreatable(
  spaces: Spaces,
  ctx: CallContext,
  spaceId: string,
  permission: string,
): Promise<void> {
  await spaces.get(ctx, spaceId);
  requirePermission(ctx, spaceId, permission);
}

/**
 * The spaces a list may show: `null` means every space of the account (an admin with no
 * filter); otherwise the ids to restrict to. A space_id filter naming an invisible space is
 * 404, a visible one without the read permission 403 (as ax-client's list operations say).
 */
export async function listableSpaceIds(
  spaces: Spaces,
  ctx: CallContext,
  filter: { spaceId: string; spaceName: string },
  read: string,
): Promise<string[] | null> {
  const p = ctx.principal;
  if (filter.spaceId) {
    await spaces.get(ctx, filter.spaceId);
    requirePermission(ctx, filter.spaceId, read);
  }
  let ids: string[] | null = filter.spaceId ? [filter.spaceId] : null;
  if (filter.spaceName) {
    const named = new Set(await spaces.idsNamed(ctx, filter.spaceName));
    ids = ids ? ids.filter((id) => named.has(id)) : [...named];
  }
  if (isAccountAdmin(p)) return ids;
  const readable = (id: string) => hasSpacePermission(p, id, read);
  return (ids ?? Object.keys(p.spacePermissions)).filter(readable);
}

/** Who a write is attributed to: the user of a USER key, else the service account. */
export function actorId(ctx: CallContext): string {
  return ctx.principal.userId || ctx.principal.serviceAccountId;
}
