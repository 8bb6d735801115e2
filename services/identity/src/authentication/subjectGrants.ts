import { PREDEFINED_ROLES, predefinedRole } from "@argus/platform";
import { tracedQuery } from "@argus/eventstore";
import type { Grant, PermissionSet, Principal } from "@argus/proto/common/v1";
import type { Pool, PoolClient } from "pg";

export interface Subject {
  type: "USER" | "SERVICE_ACCOUNT";
  id: string;
}

/** The subject's own grants: the part of the principal that authorization reads. */
export type SubjectGrants = Pick<
  Principal,
  "organizationIds" | "adminOrganizationIds" | "spaceGrants" | "projectGrants" | "customRoles"
>;

interface BindingRow {
  resource_type: "ORGANIZATION" | "SPACE" | "PROJECT";
  resource_id: string;
  role_id: string;
  /** Null for predefined roles: the principal names them, platform knows their permissions. */
  custom_permissions: string[] | null;
}

const PREDEFINED_IDS: readonly string[] = PREDEFINED_ROLES.map((r) => r.id);
const ADMIN_ROLE_ID = predefinedRole("ADMIN").id;

/**
 * One indexed read of the subject's role bindings (README "Roles and permissions" is applied
 * by platform authorization.ts from these plus a space's own facts). Its size is the number
 * of the subject's bindings, whatever the size of the account. Bindings on spaces deleted
 * since are left out.
 */
export async function subjectGrants(
  client: Pool | PoolClient,
  accountId: string,
  subject: Subject,
): Promise<SubjectGrants> {
  const res = await tracedQuery<BindingRow>(
    client,
    "subject grants",
    `select rb.resource_type, rb.resource_id::text, rb.role_id::text,
            case when rb.role_id = any($4::uuid[]) then null else r.permissions end as custom_permissions
       from role_bindings rb
       join roles r on r.id = rb.role_id
      where rb.subject_type = $2 and rb.subject_id = $3 and rb.account_id = $1
        and (rb.resource_type <> 'SPACE'
             or exists (select 1 from spaces s where s.id = rb.resource_id and s.account_id = $1))`,
    [accountId, subject.type, subject.id, PREDEFINED_IDS],
  );
  return grantsOf(res.rows);
}

/** Folds binding rows into the principal's grant fields. */
function grantsOf(rows: readonly BindingRow[]): SubjectGrants {
  const grants: SubjectGrants = {
    organizationIds: [],
    adminOrganizationIds: [],
    spaceGrants: [],
    projectGrants: [],
    customRoles: {},
  };
  const add = (list: Grant[], row: BindingRow) => {
    const found = list.find((g) => g.roleId === row.role_id);
    if (found) found.resourceIds.push(row.resource_id);
    else list.push({ roleId: row.role_id, resourceIds: [row.resource_id] });
  };
  for (const row of rows) {
    if (row.resource_type === "ORGANIZATION") {
      grants.organizationIds.push(row.resource_id);
      // Other organization roles make the subject a member and grant nothing in spaces.
      if (row.role_id === ADMIN_ROLE_ID) grants.adminOrganizationIds.push(row.resource_id);
      continue;
    }
    add(row.resource_type === "SPACE" ? grants.spaceGrants : grants.projectGrants, row);
    if (row.custom_permissions !== null)
      grants.customRoles[row.role_id] = {
        permissions: [...row.custom_permissions].sort(),
      } satisfies PermissionSet;
  }
  return grants;
}
