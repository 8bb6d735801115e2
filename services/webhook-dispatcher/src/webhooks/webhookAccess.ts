import { DomainError, isAccountAdmin, notFound, type CallContext } from "@argus/platform";
import type { Principal } from "@argus/proto/common/v1";

/*
 * Webhooks belong to an organization. Its members (bound to it) and account admins read them;
 * organization and account admins manage them — they carry the organization's events to an
 * outside address, and the delivery log holds those events' payloads.
 */

/** The organizations whose webhooks the caller reads; undefined: every one of the account. */
export function readableOrganizations(p: Principal): readonly string[] | undefined {
  return isAccountAdmin(p)
    ? undefined
    : [...new Set([...p.organizationIds, ...p.adminOrganizationIds])];
}

export const readsOrganization = (p: Principal, organizationId: string): boolean =>
  isAccountAdmin(p) ||
  p.organizationIds.includes(organizationId) ||
  p.adminOrganizationIds.includes(organizationId);

const managesOrganization = (p: Principal, organizationId: string): boolean =>
  isAccountAdmin(p) || p.adminOrganizationIds.includes(organizationId);

/** 404 when the caller cannot see the organization's webhooks, 403 when it may not manage them. */
export function requireManager(ctx: CallContext, organizationId: string, what: string): void {
  const p = ctx.principal;
  if (!readsOrganization(p, organizationId)) throw notFound("webhook");
  if (!managesOrganization(p, organizationId))
    throw new DomainError(
      "access-forbidden",
      `${what} requires the organization's or the account's admin role`,
    );
}
