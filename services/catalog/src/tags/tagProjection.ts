import { tracedQuery, type Projections } from "@argus/eventstore";
import type { ResourceTagsEvent, TagEvent } from "@argus/contracts";

/** Tags and their attachments. Deleting a tag cascades to its attachments (foreign key). */
export const tagProjections: Projections<TagEvent | ResourceTagsEvent> = {
  TagCreated: (client, d) =>
    tracedQuery(
      client,
      "project TagCreated",
      `insert into tags (id, account_id, space_id, name, description, color, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [d.id, d.account_id, d.space_id, d.name, d.description, d.color, d.created_at, d.updated_at],
    ),
  // A field absent from the event keeps its value; `$n::boolean` says whether it was present.
  TagUpdated: (client, d) =>
    tracedQuery(
      client,
      "project TagUpdated",
      `update tags set
           name = case when $2::boolean then $3 else name end,
           description = case when $4::boolean then $5 else description end,
           color = case when $6::boolean then $7 else color end,
           updated_at = $8
         where id = $1`,
      [
        d.id,
        "name" in d,
        d.name ?? null,
        "description" in d,
        d.description ?? null,
        "color" in d,
        d.color ?? null,
        d.updated_at,
      ],
    ),
  TagDeleted: (client, d) =>
    tracedQuery(client, "project TagDeleted", "delete from tags where id = $1", [d.id]),
  TagsAttached: (client, d) =>
    tracedQuery(
      client,
      "project TagsAttached",
      `insert into tag_attachments (tag_id, resource_type, resource_id, space_id, attached_at)
         select unnest($1::uuid[]), $2, $3, $4, $5
       on conflict do nothing`,
      [d.tag_ids, d.resource_type, d.resource_id, d.space_id, d.attached_at],
    ),
  TagsDetached: (client, d) =>
    tracedQuery(
      client,
      "project TagsDetached",
      `delete from tag_attachments
         where resource_type = $1 and resource_id = $2 and tag_id = any($3::uuid[])`,
      [d.resource_type, d.resource_id, d.tag_ids],
    ),
};
