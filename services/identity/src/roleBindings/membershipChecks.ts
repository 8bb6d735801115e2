import { DomainError, PREDEFINED_ROLES, notFound } from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type { BindingResourceType } from "@argus/contracts";

/** The public API's rules for space and organization users, read in the command's transaction. */

export function predefinedRoleId(name: string): string {
  const role = PREDEFINED_ROLES.find((r) => r.name === name);
  if (!role) throw new DomainError("invalid-request", `unknown predefined role ${name}`);
  return role.id;
}

/** The live user's account role (`admin`, `member`, ...), undefined when there is no such user. */
async function accountRoleOf(
  client: Queryable,
  accountId: string,
  userId: string,
): Promise<string | undefined> {
  const res = await tracedQuery<{ account_role: string }>(
    client,
    "user account role",
    "select account_role from users where id = $1 and account_id = $2 and deleted_at is null",
    [userId, accountId],
  );
  return res.rows[0]?.account_role;
}

/**
 * Annotators get only the ANNOTATOR role, and only annotators do; the public API answers 422
 * for a space role and 400 for an organization role.
 */
export async function requireRoleFitsAccountRole(
  client: Queryable,
  accountId: string,
  userId: string,
  roleName: string,
  on: "space" | "organization",
): Promise<void> {
  const accountRole = await accountRoleOf(client, accountId, userId);
  if (accountRole === undefined) throw notFound("user");
  if ((accountRole === "annotator") !== (roleName === "ANNOTATOR"))
    throw new DomainError(
      on === "space" ? "unprocessable-entity" : "invalid-request",
      `the ANNOTATOR ${on} role is for annotators only, and annotators may hold only it`,
    );
}

/**
 * A user is added to a space only if they already belong to its organization (an
 * ORGANIZATION binding; account admins belong to every organization). No auto-enrollment:
 * 400 otherwise. The organization binding is held until the command commits, so a concurrent
 * remove_organization_user (whose deletion of it waits) then finds the new space binding and
 * removes it too; one that deleted it first leaves this check no membership to find.
 */
export async function requireOrganizationMember(
  client: Queryable,
  accountId: string,
  organizationId: string,
  userId: string,
): Promise<void> {
  const role = await accountRoleOf(client, accountId, userId);
  if (role === "admin") return;
  const bound =
    role !== undefined &&
    (
      await tracedQuery(
        client,
        "hold organization membership",
        `select 1 from role_bindings
          where account_id = $1 and subject_type = 'USER' and subject_id = $2
            and resource_type = 'ORGANIZATION' and resource_id = $3
          for key share`,
        [accountId, userId, organizationId],
      )
    ).rowCount !== 0;
  if (!bound)
    throw new DomainError(
      "invalid-request",
      "the user must already be a member of the space's organization (add_organization_user first)",
    );
}

/** The user's binding on the resource (one per user and resource), if any. */
export async function findMembership(
  client: Queryable,
  accountId: string,
  type: BindingResourceType,
  resourceId: string,
  userId: string,
): Promise<{ id: string } | undefined> {
  const res = await tracedQuery<{ id: string }>(
    client,
    "find membership",
    `select id from role_bindings
      where account_id = $1 and subject_type = 'USER' and subject_id = $2
        and resource_type = $3 and resource_id = $4`,
    [accountId, userId, type, resourceId],
  );
  return res.rows[0];
}

/** The role as a membership names it: a predefined name, or a custom role's id and name. */
export async function membershipRole(client: Queryable, roleId: string) {
  const res = await tracedQuery<{ name: string; is_predefined: boolean }>(
    client,
    "role name",
    "select name, is_predefined from roles where id = $1",
    [roleId],
  );
  const r = res.rows[0]!;
  return r.is_predefined
    ? { roleName: r.name, customRoleId: "", customRoleName: "" }
    : { roleName: "", customRoleId: roleId, customRoleName: r.name };
}
