import {
  hasSpacePermission,
  isAccountAdmin,
  requireSpacePermission,
  type CallContext,
  type Permission,
} from "@argus/platform";
import type { Spaces } from "./spaces.ts";

/** Creating in a space: an invisible space is 404, a visible one without the permission 403. */
export async function requireCreatable(
  spaces: Spaces,
  ctx: CallContext,
  spaceId: string,
  permission: Permission,
): Promise<void> {
  await spaces.get(ctx, spaceId);
  requireSpacePermission(ctx.principal, spaceId, permission);
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
  read: Permission,
): Promise<string[] | null> {
  const p = ctx.principal;
  if (filter.spaceId) await requireCreatable(spaces, ctx, filter.spaceId, read);
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
