import { tracedQuery, type Queryable } from "@argus/eventstore";

/**
 * A command's hold on a row it depends on but does not own, taken inside its transaction:
 * whoever deletes that row (a projection) waits for the command to commit and then sees what
 * it wrote, and a row deleted first is not found. FOR KEY SHARE stops deletes; users are
 * deleted by an update (deleted_at), which only FOR SHARE stops.
 */
const HOLDS = {
  organization: "select 1 from organizations where id = $1 and account_id = $2 for key share",
  space: "select 1 from spaces where id = $1 and account_id = $2 for key share",
  role: `select 1 from roles where id = $1 and (account_id is null or account_id = $2)
          for key share`,
  user: "select 1 from users where id = $1 and account_id = $2 and deleted_at is null for share",
  service_account: "select 1 from service_accounts where id = $1 and account_id = $2 for key share",
} as const;

export type Held = keyof typeof HOLDS;

/** Whether the row exists (and is live) in the account; held until the transaction ends. */
export async function hold(
  client: Queryable,
  what: Held,
  id: string,
  accountId: string,
): Promise<boolean> {
  const res = await tracedQuery(client, `hold ${what}`, HOLDS[what], [id, accountId]);
  return (res.rowCount ?? 0) > 0;
}
