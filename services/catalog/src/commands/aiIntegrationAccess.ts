import type { AiIntegrationConfig } from "@argus/contracts";
import {
  DomainError,
  hasSpacePermission,
  isAccountAdmin,
  type CallContext,
  type Permission,
} from "@argus/platform";
import type { Spaces } from "../adapters/spaces.ts";

/**
 * Only account admins change account- or organization-wide integrations; others need
 * `permission` in every space the integration is scoped to.
 */
export function requireChangeable(
  ctx: CallContext,
  scopings: AiIntegrationConfig["scopings"],
  permission: Permission,
): void {
  const p = ctx.principal;
  if (isAccountAdmin(p)) return;
  const spaces = scopings.map((s) => s.space_id);
  if (
    spaces.length === 0 ||
    spaces.some((s) => s === null || !hasSpacePermission(p, s, permission))
  )
    throw new DomainError(
      "access-forbidden",
      `needs the account admin role, or ${permission} in every space the integration is scoped to`,
    );
}

/** Scopings must name spaces and organizations the caller can see (422 otherwise). */
export async function checkScopings(
  spaces: Spaces,
  ctx: CallContext,
  scopings: AiIntegrationConfig["scopings"],
): Promise<void> {
  for (const s of scopings) {
    if (s.organization_id !== null && !ctx.principal.organizationIds.includes(s.organization_id))
      throw new DomainError("unprocessable-entity", "a scoping names an unknown organization");
    if (s.space_id !== null)
      await spaces.get(ctx, s.space_id).catch(() => {
        throw new DomainError("unprocessable-entity", "a scoping names an unknown space");
      });
  }
}
