import type { Projections } from "@argus/eventstore";
import type { RoleBindingEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** Role bindings (a SERVICE key's grants are projected with its service account: apiKeys/). */
export const roleBindingProjections: Projections<RoleBindingEvent> = {
  RoleBindingCreated: sql(
    "RoleBindingCreated",
    `insert into role_bindings (id, account_id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    (d) => [
      d.id,
      d.account_id,
      d.role_id,
      d.subject_type,
      d.subject_id,
      d.resource_type,
      d.resource_id,
      d.created_at,
    ],
  ),
  RoleBindingUpdated: sql(
    "RoleBindingUpdated",
    "update role_bindings set role_id = $2, updated_at = $3 where id = $1",
    (d) => [d.id, d.role_id, d.updated_at],
  ),
  RoleBindingDeleted: sql("RoleBindingDeleted", "delete from role_bindings where id = $1", (d) => [
    d.id,
  ]),
};
