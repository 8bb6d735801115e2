import {
  ANNOTATOR_CEILING,
  MEMBER_PUBLIC_SPACE_PERMISSIONS,
  predefinedRole,
} from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { PermissionSet } from "@argus/proto/common/v1";
import type { Pool, PoolClient } from "pg";

export interface Subject {
  type: "USER" | "SERVICE_ACCOUNT";
  id: string;
}

export interface EffectivePermissions {
  /** Space uuid → the permission identifiers the subject holds there. */
  spacePermissions: Record<string, PermissionSet>;
  /** Organizations the subject belongs to (all of them for account admins). */
  organizationIds: string[];
  /** Every restricted project of the account → what the subject's PROJECT bindings grant there. */
  restrictedProjects: Record<string, PermissionSet>;
}

interface Row {
  space_id: string | null;
  organization_id: string;
  permissions: string[];
}

/**
 * The authorization model in one query (README "Roles and permissions"):
 * - a SPACE binding grants its role's permissions in that space;
 * - an ORGANIZATION binding makes the subject a member of the organization; only the
 *   predefined ADMIN role bound there propagates, to every space of it (private ones
 *   included); other organization roles grant nothing in spaces by themselves;
 * - an account member reads every public space (READ_ONLY);
 * - an annotator never holds more than the ANNOTATOR role, whatever is bound;
 * - account admins may do everything (authorization.ts short-circuits them), so their map
 *   holds only what bindings say, and they belong to every organization.
 * Service accounts have no account role: only their bindings count.
 * A restricted project is reachable only through explicit PROJECT bindings: every restricted
 * project of the account is listed with what those bindings grant (empty when none), and
 * only restricted ones, so the principal stays small.
 */
export async function effectivePermissions(
  client: Pool | PoolClient,
  accountId: string,
  subject: Subject,
): Promise<EffectivePermissions> {
  const res = await tracedQuery<Row & { account_role: string | null }>(
    client,
    "effective permissions",
    `with who as (
       select case when $2 = 'USER'
              then (select account_role from users where id = $3 and account_id = $1 and deleted_at is null)
              end as account_role
     )
     select s.id::text as space_id, s.organization_id::text as organization_id, r.permissions, who.account_role
       from who, role_bindings rb
       join roles r on r.id = rb.role_id
       join spaces s on s.account_id = $1
                    and ((rb.resource_type = 'SPACE' and s.id = rb.resource_id)
                      or (rb.resource_type = 'ORGANIZATION' and s.organization_id = rb.resource_id
                           and rb.role_id = $5::uuid))
      where rb.account_id = $1 and rb.subject_type = $2 and rb.subject_id = $3
     union all
     select s.id::text, s.organization_id::text, $4::text[], who.account_role
       from who, spaces s
      where who.account_role = 'member' and s.account_id = $1 and not s.is_private
     union all
     select null, rb.resource_id::text, '{}'::text[], who.account_role
       from who, role_bindings rb
      where rb.account_id = $1 and rb.subject_type = $2 and rb.subject_id = $3
        and rb.resource_type = 'ORGANIZATION'
     union all
     select null, o.id::text, '{}'::text[], who.account_role
       from who, organizations o
      where who.account_role = 'admin' and o.account_id = $1`,
    [
      accountId,
      subject.type,
      subject.id,
      [...MEMBER_PUBLIC_SPACE_PERMISSIONS],
      predefinedRole("ADMIN").id,
    ],
  );
  const isAnnotator = res.rows[0]?.account_role === "annotator";
  const ceiling: ReadonlySet<string> = new Set(ANNOTATOR_CEILING);
  const spaces = new Map<string, Set<string>>();
  const organizations = new Set<string>();
  for (const row of res.rows) {
    organizations.add(row.organization_id);
    if (row.space_id === null) continue;
    const set = spaces.get(row.space_id) ?? new Set<string>();
    for (const p of row.permissions) if (!isAnnotator || ceiling.has(p)) set.add(p);
    spaces.set(row.space_id, set);
  }
  const spacePermissions: Record<string, PermissionSet> = {};
  for (const [id, set] of spaces) spacePermissions[id] = { permissions: [...set].sort() };
  const restricted = await tracedQuery<{ project_id: string; permissions: string[] }>(
    client,
    "restricted projects",
    `select rr.resource_id::text as project_id,
            coalesce(array_agg(distinct p order by p) filter (where p is not null), '{}') as permissions
       from resource_restrictions rr
       left join role_bindings rb on rb.account_id = $1 and rb.resource_type = 'PROJECT'
                                 and rb.resource_id = rr.resource_id
                                 and rb.subject_type = $2 and rb.subject_id = $3
       left join roles r on r.id = rb.role_id
       left join lateral unnest(r.permissions) p on true
      where rr.account_id = $1 and rr.resource_type = 'PROJECT'
      group by rr.resource_id`,
    [accountId, subject.type, subject.id],
  );
  const restrictedProjects: Record<string, PermissionSet> = {};
  for (const r of restricted.rows)
    restrictedProjects[r.project_id] = {
      permissions: r.permissions.filter((p) => !isAnnotator || ceiling.has(p)),
    };
  return { spacePermissions, organizationIds: [...organizations], restrictedProjects };
}
