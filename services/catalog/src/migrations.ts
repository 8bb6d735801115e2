import { readFileSync, readdirSync } from "node:fs";

export const SCHEMA = "catalog";

const dir = new URL("../migrations/", import.meta.url);

/**
 * The catalog's inline projections, one `NNNN_name.sql` file per migration in ../migrations,
 * applied in file-name order. A file, once shipped, is never edited (its checksum is kept).
 */
export const migrations = readdirSync(dir)
  .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
  .sort()
  .map((f) => ({ id: f.replace(/\.sql$/, ""), sql: readFileSync(new URL(f, dir), "utf8") }));
