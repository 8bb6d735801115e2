import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";

/**
 * Whether a queue uses the config, read in the command's transaction. A queue taking the
 * config up after this read trips the queue-config foreign key (migration 0025) on either
 * side, so "a config in use cannot be deleted" holds under any interleaving.
 */
export async function configInUse(client: PoolClient, configId: string): Promise<boolean> {
  const res = await tracedQuery(
    client,
    "annotation config in use",
    "select 1 from annotation_queue_configs where config_id = $1 limit 1",
    [configId],
  );
  return (res.rowCount ?? 0) > 0;
}

/** Which of `ids` are annotation configs of the space (a queue may use only those). */
export async function configsInSpace(
  client: PoolClient,
  ids: readonly string[],
  spaceId: string,
): Promise<string[]> {
  const res = await tracedQuery<{ id: string }>(
    client,
    "configs in space",
    "select id from annotation_configs where id = any($1::uuid[]) and space_id = $2",
    [ids, spaceId],
  );
  return res.rows.map((r) => r.id);
}
