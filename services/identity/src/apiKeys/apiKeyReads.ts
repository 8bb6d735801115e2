import { tracedQuery, type Queryable } from "@argus/eventstore";
import { predefinedRole, type SpaceFacts } from "@argus/platform";
import type { Principal } from "@argus/proto/common/v1";
import { KEY_COLUMNS, type KeyRow } from "./apiKeyRows.ts";

/** Reads of identity's API key tables (never the secrets). */

export type KeyWithSpaces = KeyRow & { bound_space_ids: string[]; bound_spaces: SpaceFacts[] };

/** The key with the spaces its service account is bound to (what access to it depends on). */
export async function loadKey(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<KeyWithSpaces | undefined> {
  const res = await tracedQuery<KeyWithSpaces>(
    db,
    "load api key",
    `select ${KEY_COLUMNS},
            array(select rb.resource_id::text from role_bindings rb
                   where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                     and rb.resource_type = 'SPACE') as bound_space_ids,
            coalesce((select json_agg(json_build_object('id', s.id, 'organizationId', s.organization_id,
                                                        'isPrivate', s.is_private))
                        from role_bindings rb join spaces s on s.id = rb.resource_id
                       where rb.subject_type = 'SERVICE_ACCOUNT' and rb.subject_id = k.service_account_id
                         and rb.resource_type = 'SPACE'), '[]') as bound_spaces
       from api_keys k
      where k.id = $1 and k.account_id = $2`,
    [id, accountId],
  );
  return res.rows[0];
}

/** The subject the caller's role bindings are recorded under. */
export function callerSubject(p: Principal): { type: "USER" | "SERVICE_ACCOUNT"; id: string } {
  return p.userId
    ? { type: "USER", id: p.userId }
    : { type: "SERVICE_ACCOUNT", id: p.serviceAccountId };
}

/**
 * Among `spaceIds`, the spaces where the caller is a space admin: bound to the predefined ADMIN
 * role on the space itself or on its organization.
 */
export async function adminSpaces(
  db: Queryable,
  p: Principal,
  spaceIds: readonly string[],
): Promise<Set<string>> {
  if (spaceIds.length === 0) return new Set();
  const who = callerSubject(p);
  const res = await tracedQuery<{ id: string }>(
    db,
    "caller admin spaces",
    `select s.id::text as id from spaces s
      where s.id = any($3::uuid[]) and s.account_id = $5
        and exists (select 1 from role_bindings rb
                     where rb.subject_type = $1 and rb.subject_id = $2 and rb.role_id = $4
                       and ((rb.resource_type = 'SPACE' and rb.resource_id = s.id)
                         or (rb.resource_type = 'ORGANIZATION' and rb.resource_id = s.organization_id)))`,
    [who.type, who.id, spaceIds, predefinedRole("ADMIN").id, p.accountId],
  );
  return new Set(res.rows.map((r) => r.id));
}
