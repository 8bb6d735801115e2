// Shared by every service that owns space-scoped resources: the tables of its copy of
// identity's access facts (`space_facts`, `restricted_projects`), which `identitySpaces`,
// `projectSpaceFacts`, `restrictionsConsumer` and the list rules (`SPACE_FACTS`) use, created
// in the service's own schema by one of its migrations.
import { readFileSync } from "node:fs";
import type { Migration } from "@argus/eventstore";

/** The canonical SQL of the access-facts tables (`sql/access_facts.sql` of this package). */
export const ACCESS_FACTS_SQL: string = readFileSync(
  new URL("../sql/access_facts.sql", import.meta.url),
  "utf8",
);

/**
 * The access-facts tables as migration `NNNN_<name>` of a service, the id `loadMigrations`
 * gives the file `NNNN_<name>.sql`; add it to the service's list in version order, e.g.
 *
 * ```ts
 * migrations: [...loadMigrations(migrationsDirOf("dataset")), accessFactsMigration(2)]
 *   .sort((a, b) => a.id.localeCompare(b.id)),
 * ```
 *
 * The version must be one no migration file of the service uses. `migrate` records each
 * migration's id and the sha256 of its text, and refuses an applied migration whose text
 * changed: so this SQL is never edited once shipped (new changes are new migrations), and the
 * catalog, whose `0027_access_facts.sql` predates this package and is applied in deployments,
 * keeps that file (the same text as `sql/access_facts.sql`, asserted by the catalog's tests)
 * rather than this helper.
 */
export function accessFactsMigration(version: number, name = "access_facts"): Migration {
  if (!Number.isInteger(version) || version < 0 || version > 9999)
    throw new Error(`migration version ${version} is not a 4-digit number`);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`migration name ${name} is not snake_case`);
  return { id: `${String(version).padStart(4, "0")}_${name}`, sql: ACCESS_FACTS_SQL };
}
