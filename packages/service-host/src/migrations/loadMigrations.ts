import { readFileSync, readdirSync } from "node:fs";
import type { Migration } from "@argus/eventstore";

/**
 * A service's migrations: one `NNNN_name.sql` file each in `dir`, applied in file-name order.
 * A file, once shipped, is never edited (its checksum is kept).
 */
export function loadMigrations(dir: URL): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ""), sql: readFileSync(new URL(f, dir), "utf8") }));
}

/** `services/<name>/migrations/` of the repository this package lives in. */
export const migrationsDirOf = (service: string): URL =>
  new URL(`../../../../services/${service}/migrations/`, import.meta.url);
