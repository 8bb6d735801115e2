import type { Projections } from "@argus/eventstore";
import type { SpaceEvent } from "@argus/contracts";
import { sql, steps } from "../shared/projectionSql.ts";

/**
 * Spaces. A deletion removes the row before the bindings on it: a command that depends on the
 * row holds it (shared/holds.ts), so the delete waits for that command and the bindings'
 * delete then sees what it bound.
 */
export const spaceProjections: Projections<SpaceEvent> = {
  SpaceCreated: sql(
    "SpaceCreated",
    `insert into spaces (id, account_id, organization_id, name, description, is_private, created_at)
       values ($1, $2, $3, $4, $5, $6, $7)`,
    (d) => [
      d.id,
      d.account_id,
      d.organization_id,
      d.name,
      d.description,
      d.is_private,
      d.created_at,
    ],
  ),
  SpaceUpdated: sql(
    "SpaceUpdated",
    `update spaces set name = $2, description = $3, is_private = $4,
       settings = coalesce($5::jsonb, settings) where id = $1`,
    (d) => [
      d.id,
      d.name,
      d.description,
      d.is_private,
      d.settings === undefined ? null : JSON.stringify(d.settings),
    ],
  ),
  SpaceDeleted: steps(
    sql("SpaceDeleted", "delete from spaces where id = $1", (d) => [d.id]),
    sql(
      "SpaceDeleted bindings",
      "delete from role_bindings where resource_type = 'SPACE' and resource_id = $1",
      (d) => [d.id],
    ),
  ),
};
