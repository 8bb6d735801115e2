import { tracedQuery, type Queryable } from "@argus/eventstore";
import { ACCOUNT_PERMISSIONS, DomainError, isAccountAdmin, type Principal } from "@argus/platform";
import type { BindingResourceType, SubjectType } from "@argus/contracts";
import type { BindingTargets, BoundBinding } from "./roleBindingDecider.ts";
import { hold } from "../shared/holds.ts";

export interface BindingTarget {
  roleId: string;
  subjectType: SubjectType;
  subjectId: string;
  resourceType: BindingResourceType;
  resourceId: string;
}

/**
 * Whether what a binding points at is live, held until the command commits, so that deleting
 * the resource, role or subject meanwhile either waits for the binding (and removes it with
 * the rest) or comes first (and the binding is not made). Projects are not identity's.
 */
export async function bindingTargets(
  client: Queryable,
  accountId: string,
  t: BindingTarget,
): Promise<BindingTargets> {
  const resource =
    t.resourceType === "PROJECT" ||
    (await hold(
      client,
      t.resourceType === "SPACE" ? "space" : "organization",
      t.resourceId,
      accountId,
    ));
  const role = await hold(client, "role", t.roleId, accountId);
  const subject = await hold(
    client,
    t.subjectType === "USER" ? "user" : "service_account",
    t.subjectId,
    accountId,
  );
  return { resource, role, subject };
}

/**
 * A binding a SERVICE key granted with its service account has no RoleBindingCreated on its
 * own stream: its row (row-locked, current role) is what the binding's decisions start from.
 */
export async function grantedBinding(
  client: Queryable,
  id: string,
): Promise<BoundBinding | undefined> {
  const res = await tracedQuery<{ role_id: string; subject_id: string }>(
    client,
    "granted role binding",
    `select role_id, subject_id from role_bindings
      where id = $1 and subject_type = 'SERVICE_ACCOUNT' for update`,
    [id],
  );
  const r = res.rows[0];
  return r && { id, roleId: r.role_id, subjectType: "SERVICE_ACCOUNT", subjectId: r.subject_id };
}

/**
 * Only account admins bind a custom role that grants account-wide permissions (users, roles,
 * organizations: ACCOUNT_PERMISSIONS). A space binding of it counts for those account-wide
 * (`holdsAnywhere`), so a space admin binding one on their own space would take them for the
 * whole account; organization and project bindings are refused alike, to keep one rule.
 */
export async function requireBindableRole(
  client: Queryable,
  p: Principal,
  roleId: string,
): Promise<void> {
  if (isAccountAdmin(p)) return;
  const res = await tracedQuery(
    client,
    "role grants account permissions",
    `select 1 from roles
      where id = $1 and account_id = $3 and not is_predefined and permissions && $2::text[]`,
    [roleId, ACCOUNT_PERMISSIONS, p.accountId],
  );
  if ((res.rowCount ?? 0) > 0)
    throw new DomainError(
      "access-forbidden",
      `only account admins bind a role that grants account-wide permissions (${ACCOUNT_PERMISSIONS.join(", ")})`,
    );
}
