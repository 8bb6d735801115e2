import type { Projections } from "@argus/eventstore";
import type { AccountEvent } from "@argus/contracts";
import { sql } from "../shared/projectionSql.ts";

/** The account headless initialization creates. */
export const accountProjections: Projections<AccountEvent> = {
  AccountCreated: sql(
    "AccountCreated",
    "insert into accounts (id, name, created_at) values ($1, $2, $3)",
    (d) => [d.id, d.name, d.created_at],
  ),
};
