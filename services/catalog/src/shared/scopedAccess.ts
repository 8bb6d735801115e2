import type { AiIntegrationConfig } from "@argus/contracts";
import {
  DomainError,
  decideInSpace,
  hasSpacePermission,
  isAccountAdmin,
  type CallContext,
  type Permission,
} from "@argus/platform";
import { type Spaces } from "@argus/spaces";
import type { CommandInput } from "@argus/eventstore";
import type { PoolClient } from "pg";

type Scopings = AiIntegrationConfig["scopings"];

/**
 * Only account admins change account- or organization-wide integrations; others need
 * `permission` in every space the integration is scoped to.
 */
export async function requireChangeable(
  spaces: Spaces,
  ctx: CallContext,
  scopings: AiIntegrationConfig["scopings"],
  permission: Permission,
): Promise<void> {
  const p = ctx.principal;
  if (isAccountAdmin(p)) return;
  const ids = scopings.map((s) => s.space_id);
  const holds = async (id: string | null) => {
    if (id === null) return false;
    const alone = decideInSpace(p, id, permission);
    if (alone !== undefined) return alone;
    const facts = await spaces.facts(ctx, id);
    return facts !== undefined && hasSpacePermission(p, facts.space, permission);
  };
  if (ids.length === 0 || !(await Promise.all(ids.map(holds))).every(Boolean))
    throw new DomainError(
      "access-forbidden",
      `needs the account admin role, or ${permission} in every space the integration is scoped to`,
    );
}

/**
 * Scopings must name spaces and organizations the caller can see, and a space of the
 * organization a scoping names with it (422 otherwise): one scoping is one place.
 */
export async function checkScopings(
  spaces: Spaces,
  ctx: CallContext,
  scopings: AiIntegrationConfig["scopings"],
): Promise<void> {
  for (const s of scopings) {
    if (s.organization_id !== null && !(await spaces.seesOrganization(ctx, s.organization_id)))
      throw new DomainError("unprocessable-entity", "a scoping names an unknown organization");
    if (s.space_id === null) continue;
    const space = await spaces.get(ctx, s.space_id).catch(() => {
      throw new DomainError("unprocessable-entity", "a scoping names an unknown space");
    });
    if (s.organization_id !== null && space.organizationId !== s.organization_id)
      throw new DomainError(
        "unprocessable-entity",
        "a scoping names a space of another organization than its own",
      );
  }
}

/**
 * A command on a scoped integration, authorized on its scopings as its stream says, in the
 * transaction (a concurrent change of scopings cannot slip past the check). `command` may be
 * built there too, from facts read in the transaction.
 */
export const authorizedOnScopings = <S extends { status: string }, C>(
  spaces: Spaces,
  ctx: CallContext,
  permission: Permission,
  scopingsOf: (live: S) => Scopings,
  command: C | ((client: PoolClient) => Promise<C>),
): CommandInput<S, C> => ({
  build: async (state, client) => {
    if (state.status === "live")
      await requireChangeable(spaces, ctx, scopingsOf(state), permission);
    return typeof command === "function"
      ? (command as (client: PoolClient) => Promise<C>)(client)
      : command;
  },
});
