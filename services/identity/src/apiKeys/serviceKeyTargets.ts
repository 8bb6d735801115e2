import { tracedQuery, type Queryable } from "@argus/eventstore";
import { predefinedRole } from "@argus/platform";
import type { Principal } from "@argus/proto/common/v1";
import type { ServiceRoleName } from "./serviceAccountDecider.ts";
import { callerSubject } from "./apiKeyReads.ts";

export const RANK: Record<ServiceRoleName, number> = { READ_ONLY: 1, MEMBER: 2, ADMIN: 3 };
const ROLE_BY_ID = new Map(
  (["ADMIN", "MEMBER", "READ_ONLY"] as const).map((n) => [predefinedRole(n).id, n]),
);

/**
 * The organizations and spaces a SERVICE key's request names, as found in the account. Held
 * (FOR KEY SHARE) until the key is made: a deletion meanwhile waits and removes its grants.
 */
export async function holdTargets(
  client: Queryable,
  accountId: string,
  orgIds: readonly string[],
  spaceIds: readonly string[],
) {
  const orgs = await tracedQuery<{ id: string }>(
    client,
    "service key organizations",
    `select id::text from organizations
      where account_id = $1 and id = any($2::uuid[]) for key share`,
    [accountId, orgIds],
  );
  const spaces = await tracedQuery<{ id: string; organization_id: string; is_private: boolean }>(
    client,
    "service key spaces",
    `select id::text, organization_id::text, is_private from spaces
      where account_id = $1 and id = any($2::uuid[]) for key share`,
    [accountId, spaceIds],
  );
  return {
    orgs: new Set(orgs.rows.map((r) => r.id)),
    spaces: new Map(spaces.rows.map((r) => [r.id, r] as const)),
  };
}

/** The caller's highest predefined role bound on each organization. */
export async function orgRanks(
  client: Queryable,
  p: Principal,
  orgIds: string[],
): Promise<Map<string, number>> {
  const who = callerSubject(p);
  const res = await tracedQuery<{ resource_id: string; role_id: string }>(
    client,
    "caller organization roles",
    `select resource_id::text, role_id::text from role_bindings
      where subject_type = $1 and subject_id = $2 and resource_type = 'ORGANIZATION'
        and resource_id = any($3::uuid[])`,
    [who.type, who.id, orgIds],
  );
  const ranks = new Map<string, number>();
  for (const r of res.rows) {
    const name = ROLE_BY_ID.get(r.role_id);
    if (name) ranks.set(r.resource_id, Math.max(ranks.get(r.resource_id) ?? 0, RANK[name]));
  }
  return ranks;
}
