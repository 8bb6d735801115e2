import type { Projections } from "@argus/eventstore";
import type { OrganizationEvent } from "@argus/contracts";
import { sql, steps } from "../shared/projectionSql.ts";

/**
 * Organizations. A deletion removes the row before the bindings on it: a command that depends
 * on the row holds it (shared/holds.ts), so the delete waits for that command and the
 * bindings' delete then sees what it bound.
 */
export const organizationProjections: Projections<OrganizationEvent> = {
  OrganizationCreated: sql(
    "OrganizationCreated",
    `insert into organizations (id, account_id, name, description, created_at)
       values ($1, $2, $3, $4, $5)`,
    (d) => [d.id, d.account_id, d.name, d.description, d.created_at],
  ),
  OrganizationUpdated: sql(
    "OrganizationUpdated",
    "update organizations set name = $2, description = $3 where id = $1",
    (d) => [d.id, d.name, d.description],
  ),
  OrganizationDeleted: steps(
    sql("OrganizationDeleted", "delete from organizations where id = $1", (d) => [d.id]),
    sql(
      "OrganizationDeleted bindings",
      "delete from role_bindings where resource_type = 'ORGANIZATION' and resource_id = $1",
      (d) => [d.id],
    ),
  ),
};
