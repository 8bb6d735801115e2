// Break-glass: `./argus admin-key <admin e-mail> [key name]` (or this file in the service image,
// as a Kubernetes Job). Whoever holds the database — identity's role, or the migration role with
// ARGUS_DB_ROLE_PREFIX — mints a new USER key for an ACTIVE account admin when every key of
// theirs is lost or revoked. The key is created through identity's own command (its
// ApiKeyCreated event goes out like any other, so the audit log shows it, with request id
// `break-glass`) and printed once; only its hash is stored.
//   DATABASE_URL, ARGUS_API_KEY_PEPPER (as identity's), ARGUS_DB_ROLE_PREFIX (optional)
import { createCommandHandler, createEventStore, tracedQuery } from "@argus/eventstore";
import { createLogger, createPool, systemClock, type CallContext } from "@argus/platform";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { apiKeyCreation } from "./apiKeys/apiKeyCommands.ts";
import { project } from "./projection.ts";

const [email, name = "break-glass"] = process.argv.slice(2);
const { DATABASE_URL, ARGUS_API_KEY_PEPPER, ARGUS_DB_ROLE_PREFIX } = process.env;
if (!email || !DATABASE_URL || !ARGUS_API_KEY_PEPPER) {
  console.error(
    "usage: admin-key <admin e-mail> [key name]  (env: DATABASE_URL, ARGUS_API_KEY_PEPPER; ARGUS_DB_ROLE_PREFIX when DATABASE_URL is the migration role's)",
  );
  process.exit(2);
}
const logger = createLogger({ service: "admin-key", level: "warn" });
const pool = createPool({
  url: DATABASE_URL,
  schema: "identity",
  logger,
  ...(ARGUS_DB_ROLE_PREFIX ? { role: `${ARGUS_DB_ROLE_PREFIX}_identity` } : {}),
});
try {
  const { rows } = await tracedQuery<{ id: string; account_id: string }>(
    pool,
    "break-glass admin",
    `select id, account_id from users
      where lower(email) = lower($1) and account_role = 'admin' and status = 'ACTIVE'`,
    [email],
  );
  const admin = rows[0];
  if (!admin) {
    console.error(`admin-key: no ACTIVE account admin with the e-mail ${email}`);
    process.exit(1);
  }
  const commands = createCommandHandler(createEventStore({ pool, schema: "identity" }), project);
  const ctx: CallContext = {
    principal: {
      accountId: admin.account_id,
      userId: admin.id,
      serviceAccountId: "",
      apiKeyId: "",
      keyType: KeyType.KEY_TYPE_USER,
      accountRole: AccountRole.ACCOUNT_ROLE_ADMIN,
      isDeveloper: false,
      organizationIds: [],
      adminOrganizationIds: [],
      spaceGrants: [],
      projectGrants: [],
      customRoles: {},
      issuedAtMs: BigInt(systemClock.now().getTime()),
      keyExpiresAtMs: 0n,
    },
    requestId: "break-glass",
    clientIp: "local",
    logger,
    deadline: undefined,
    signal: new AbortController().signal,
  };
  const created = await apiKeyCreation({
    commands,
    pepper: ARGUS_API_KEY_PEPPER,
    clock: systemClock,
  }).createApiKey(
    {
      name,
      description: "minted by the break-glass command",
      keyType: "USER",
      expiresAt: "",
      accountRole: "",
      organizations: [],
    },
    ctx,
  );
  console.log(`admin-key: created key ${created.key?.id ?? ""} for ${email}; it is shown once:`);
  console.log(created.secret);
} finally {
  await pool.end();
}
