import { canSeeSpace, isAccountAdmin } from "@argus/platform";
import { tracedQuery, type Queryable } from "@argus/eventstore";
import type { Principal } from "@argus/proto/common/v1";
import type { BotUser, OrganizationAssignment } from "@argus/proto/identity/v1/api_keys";

interface BindingRow {
  subject_id: string;
  resource_type: "ORGANIZATION" | "SPACE";
  resource_id: string;
  role_id: string;
  role_name: string;
  is_predefined: boolean;
  organization_id: string | null;
  is_private: boolean | null;
}

/**
 * The bot users of SERVICE keys in a list (`GET /v2/api-keys`), as the public API documents
 * them: id, name and account role always; their organizations and spaces only when the list is
 * not scoped to one space (`withBindings`), and then only the spaces the caller can see and the
 * organizations of those (or of the caller). A service account that cannot be found (deleted
 * while the list ran) is a bot user with an empty name, no organizations and a MEMBER
 * placeholder role.
 */
export async function botUsersOf(
  db: Queryable,
  p: Principal,
  serviceAccountIds: readonly string[],
  withBindings: boolean,
): Promise<Map<string, BotUser>> {
  const ids = [...new Set(serviceAccountIds)];
  const out = new Map<string, BotUser>(
    ids.map((id) => [id, { id, name: "", accountRole: "MEMBER", organizations: [] }]),
  );
  if (ids.length === 0) return out;
  const accounts = await tracedQuery<{ id: string; name: string; account_role: string }>(
    db,
    "bot users",
    `select id, name, account_role from service_accounts where account_id = $1 and id = any($2::uuid[])`,
    [p.accountId, ids],
  );
  for (const a of accounts.rows)
    out.set(a.id, { id: a.id, name: a.name, accountRole: a.account_role, organizations: [] });
  if (!withBindings) return out;
  const bindings = await tracedQuery<BindingRow>(
    db,
    "bot user bindings",
    `select rb.subject_id, rb.resource_type, rb.resource_id, r.id as role_id, r.name as role_name,
            r.is_predefined, s.organization_id, s.is_private
       from role_bindings rb
       join roles r on r.id = rb.role_id
       left join spaces s on rb.resource_type = 'SPACE' and s.id = rb.resource_id
      where rb.account_id = $1 and rb.subject_type = 'SERVICE_ACCOUNT'
        and rb.subject_id = any($2::uuid[])
      order by rb.resource_type, rb.resource_id`,
    [p.accountId, ids],
  );
  const inOrg = (orgId: string) =>
    isAccountAdmin(p) ||
    p.organizationIds.includes(orgId) ||
    p.adminOrganizationIds.includes(orgId);
  const orgsOf = new Map<string, Map<string, OrganizationAssignment>>();
  const orgOf = (subject: string, orgId: string) => {
    let orgs = orgsOf.get(subject);
    if (!orgs) orgsOf.set(subject, (orgs = new Map()));
    let o = orgs.get(orgId);
    // Without a binding of its own an organization is READ_ONLY, as a key's creation answers.
    if (!o) orgs.set(orgId, (o = { organizationId: orgId, role: "READ_ONLY", spaces: [] }));
    return o;
  };
  for (const b of bindings.rows) {
    if (b.resource_type === "ORGANIZATION") {
      if (inOrg(b.resource_id)) orgOf(b.subject_id, b.resource_id).role = b.role_name;
      continue;
    }
    if (b.organization_id === null) continue;
    const facts = {
      id: b.resource_id,
      organizationId: b.organization_id,
      isPrivate: b.is_private ?? false,
    };
    if (!canSeeSpace(p, facts)) continue;
    orgOf(b.subject_id, b.organization_id).spaces.push(
      b.is_predefined
        ? { spaceId: b.resource_id, role: b.role_name, customRoleId: "", customRoleName: "" }
        : {
            spaceId: b.resource_id,
            role: "",
            customRoleId: b.role_id,
            customRoleName: b.role_name,
          },
    );
  }
  for (const [subject, orgs] of orgsOf) {
    const bot = out.get(subject);
    if (bot?.name) bot.organizations = [...orgs.values()];
  }
  return out;
}
