import type { Projections } from "@argus/eventstore";
import type { RestrictionEvent, RoleBindingEvent, RoleEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** Custom roles, role bindings and project restrictions. */
export const accessProjections: Projections<RoleEvent | RoleBindingEvent | RestrictionEvent> = {
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
  ResourceRestrictionCreated: sql(
    "ResourceRestrictionCreated",
    `insert into resource_restrictions (resource_id, account_id, resource_type, created_at)
       values ($1, $2, $3, $4)`,
    (d) => [d.resource_id, d.account_id, d.resource_type, d.created_at],
  ),
  ResourceRestrictionDeleted: sql(
    "ResourceRestrictionDeleted",
    "delete from resource_restrictions where resource_id = $1",
    (d) => [d.resource_id],
  ),
};
