import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { Tag } from "@argus/proto/catalog/v1/tags";
import { rowById, type SpaceRow } from "@argus/spaces";

export interface TagRow extends SpaceRow {
  name: string;
  description: string | null;
  color: string | null;
  created_at: Date;
  updated_at: Date;
}

export const TAG_COLUMNS =
  "t.id, t.account_id, t.space_id, t.name, t.description, t.color, t.created_at, t.updated_at";

export function toTag(r: TagRow): Tag {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    ...(r.description === null ? {} : { description: r.description }),
    ...(r.color === null ? {} : { color: r.color }),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export const findTag = (db: Pool | PoolClient, id: string) =>
  rowById<TagRow>(db, "tags t", TAG_COLUMNS, id);

/** The resource's tags, most recently updated first (spec Tag list response). */
export async function tagsOf(
  db: Pool | PoolClient,
  resourceType: string,
  resourceId: string,
): Promise<TagRow[]> {
  const res = await tracedQuery<TagRow>(
    db,
    "list resource tags",
    `select ${TAG_COLUMNS} from tag_attachments a join tags t on t.id = a.tag_id
      where a.resource_type = $1 and a.resource_id = $2
      order by t.updated_at desc, t.id desc`,
    [resourceType, resourceId],
  );
  return res.rows;
}
