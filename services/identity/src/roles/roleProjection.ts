import type { Projections } from "@argus/eventstore";
import type { RoleEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** Custom roles (predefined ones are code, synced at start: predefinedRoles.ts). */
export const roleProjections: Projections<RoleEvent> = {
  RoleCreated: sql(
    "RoleCreated",
    `insert into roles (id, account_id, name, description, permissions, is_predefined, created_at, updated_at)
       values ($1, $2, $3, $4, $5, false, $6, $6)`,
    (d) => [d.id, d.account_id, d.name, d.description, d.permissions, d.created_at],
  ),
  RoleUpdated: sql(
    "RoleUpdated",
    "update roles set name = $2, description = $3, permissions = $4, updated_at = $5 where id = $1",
    (d) => [d.id, d.name, d.description, d.permissions, d.updated_at],
  ),
  RoleDeleted: sql("RoleDeleted", "delete from roles where id = $1", (d) => [d.id]),
};
