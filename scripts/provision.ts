// The database's one-time setup, run by whoever holds its superuser (the operator; locally
// `./argus up` and the test stack): a login role per service of the registry owning its schema,
// and the migration role. Idempotent; re-running sets the passwords given.
//   DATABASE_URL                    superuser URL of the Argus database
//   ARGUS_DB_ROLE_PREFIX            role names <prefix>_<service>, <prefix>_migrate (default argus)
//   ARGUS_DB_PASSWORD_<SERVICE>     one per registry service, e.g. ARGUS_DB_PASSWORD_IDENTITY
//   ARGUS_DB_PASSWORD_MIGRATE       the migration role's
import { databaseRoleNames, provisionDatabase } from "../packages/service-host/src/index.ts";
import { envPrefix } from "../packages/platform/src/index.ts";

const url = process.env.DATABASE_URL;
const names = databaseRoleNames(process.env.ARGUS_DB_ROLE_PREFIX || "argus");
const password = (who: string): string => {
  const variable = `ARGUS_DB_PASSWORD_${envPrefix(who)}`;
  const value = process.env[variable];
  if (!value || value.length < 16) {
    console.error(`provision: ${variable} is required (at least 16 characters)`);
    process.exit(2);
  }
  return value;
};
if (!url) {
  console.error("provision: DATABASE_URL (a superuser's) is required");
  process.exit(2);
}
await provisionDatabase(url, {
  services: Object.fromEntries(
    Object.entries(names.services).map(([s, role]) => [s, { role, password: password(s) }]),
  ),
  migrator: { role: names.migrator, password: password("migrate") },
});
console.log(
  `provision: roles ${[...Object.values(names.services), names.migrator].join(", ")} are in place`,
);
