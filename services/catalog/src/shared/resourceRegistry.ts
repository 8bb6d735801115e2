import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { isUuid, type SpaceRow } from "@argus/spaces";

/** A catalog-owned resource type that can carry tags; each registers itself from its projection. */
export type CatalogResourceType =
  "project" | "prompt" | "evaluator" | "annotation_queue" | "annotation_config";

export interface ResourceRow {
  type: string;
  id: string;
  accountId: string;
  spaceId: string;
}

/** Called by a resource's creation projection (with its Created data), in its transaction. */
export function registerResource(
  client: PoolClient,
  type: CatalogResourceType,
  r: SpaceRow,
): Promise<unknown> {
  return tracedQuery(
    client,
    "register resource",
    "insert into resources (type, id, account_id, space_id) values ($1, $2, $3, $4)",
    [type, r.id, r.account_id, r.space_id],
  );
}

/** Called by a resource's deletion projection: the resource and its tag attachments go. */
export async function unregisterResource(
  client: PoolClient,
  type: CatalogResourceType,
  id: string,
): Promise<void> {
  await tracedQuery(
    client,
    "unregister resource",
    "delete from resources where type = $1 and id = $2",
    [type, id],
  );
  await tracedQuery(
    client,
    "detach tags of removed resource",
    "delete from tag_attachments where resource_type = $1 and resource_id = $2",
    [type, id],
  );
}

export async function findResource(
  db: Pool | PoolClient,
  type: string,
  id: string,
): Promise<ResourceRow | undefined> {
  if (!isUuid(id)) return undefined;
  const res = await tracedQuery<{ type: string; id: string; account_id: string; space_id: string }>(
    db,
    "find resource",
    "select type, id, account_id, space_id from resources where type = $1 and id = $2",
    [type, id],
  );
  const r = res.rows[0];
  return r && { type: r.type, id: r.id, accountId: r.account_id, spaceId: r.space_id };
}
