import { tracedQuery, type Queryable } from "@argus/eventstore";
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
