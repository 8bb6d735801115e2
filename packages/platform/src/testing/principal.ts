import { AccountRole, KeyType, type Principal } from "@argus/proto/common/v1";

/**
 * Grants binding the subject in each named space to a custom role holding exactly those
 * permissions (one role per space), the way identity would sign them.
 */
export function grantsFor(
  perms: Record<string, readonly string[]>,
): Pick<Principal, "spaceGrants" | "customRoles"> {
  const spaces = Object.entries(perms);
  return {
    spaceGrants: spaces.map(([space]) => ({ roleId: `role-${space}`, resourceIds: [space] })),
    customRoles: Object.fromEntries(
      spaces.map(([space, permissions]) => [`role-${space}`, { permissions: [...permissions] }]),
    ),
  };
}

/** A principal for unit tests: an account member, with `perms` as in `grantsFor`. */
export function testPrincipal(
  o: Partial<Principal> & { perms?: Record<string, readonly string[]> } = {},
): Principal {
  const { perms = {}, ...rest } = o;
  return {
    accountId: "a1",
    userId: "u1",
    serviceAccountId: "",
    apiKeyId: "k0",
    keyType: KeyType.KEY_TYPE_USER,
    accountRole: AccountRole.ACCOUNT_ROLE_MEMBER,
    isDeveloper: false,
    organizationIds: [],
    adminOrganizationIds: [],
    projectGrants: [],
    ...grantsFor(perms),
    issuedAtMs: 0n,
    keyExpiresAtMs: 0n,
    ...rest,
  };
}
