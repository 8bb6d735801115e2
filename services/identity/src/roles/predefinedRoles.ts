import { PREDEFINED_ROLES } from "@argus/platform";
import type { Pool } from "pg";

/**
 * Predefined roles are system data defined in code (packages/platform permissions.ts), not
 * events: every start upserts them so the table always matches the code.
 */
export async function syncPredefinedRoles(pool: Pool): Promise<void> {
  for (const r of PREDEFINED_ROLES) {
    await pool.query(
      `insert into roles (id, account_id, name, description, permissions, is_predefined, created_at, updated_at)
         values ($1, null, $2, $3, $4, true, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')
       on conflict (id) do update set name = excluded.name, description = excluded.description,
         permissions = excluded.permissions`,
      [r.id, r.name, r.description, [...r.permissions]],
    );
  }
}
