import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";

/**
 * Stamps a write's time on the dataset and the version it changed: both show when their examples
 * last changed. One statement, for a projection that has no statement of its own to add it to.
 */
export async function touchDataset(
  client: PoolClient,
  d: { dataset_id: string; version_id: string; at: string },
) {
  await tracedQuery(
    client,
    "dataset touched",
    `with v as (update dataset_versions set updated_at = $3 where id = $2)
     update datasets set updated_at = $3 where id = $1`,
    [d.dataset_id, d.version_id, d.at],
  );
}
