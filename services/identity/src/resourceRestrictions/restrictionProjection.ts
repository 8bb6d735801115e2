import type { Projections } from "@argus/eventstore";
import type { RestrictionEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** Restricted resources (projects, and the public API's dashboards and prompts). */
export const restrictionProjections: Projections<RestrictionEvent> = {
  ResourceRestrictionCreated: sql(
    "ResourceRestrictionCreated",
    `insert into resource_restrictions (resource_id, account_id, resource_type, created_at, space_id)
       values ($1, $2, $3, $4, $5)`,
    (d) => [d.resource_id, d.account_id, d.resource_type, d.created_at, d.space_id ?? null],
  ),
  ResourceRestrictionDeleted: sql(
    "ResourceRestrictionDeleted",
    "delete from resource_restrictions where resource_id = $1",
    (d) => [d.resource_id],
  ),
};
