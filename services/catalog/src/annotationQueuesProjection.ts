import { tracedQuery } from "@argus/eventstore";
import type { Annotator, AnnotationValue, QueueRecord } from "./domain/annotationQueue.ts";
import type { Projection } from "./projection.ts";
import { registerResource, unregisterResource } from "./resources.ts";

const pending = (users: Annotator[]) =>
  JSON.stringify(users.map((user) => ({ user, completion_status: "PENDING" })));

/** The queue's rows in annotation_queue_configs: their foreign key guards config deletes. */
async function useConfigs(client: Parameters<Projection>[0], queueId: unknown, configIds: unknown) {
  await tracedQuery(
    client,
    "project queue configs (drop)",
    "delete from annotation_queue_configs where queue_id = $1 and not (config_id = any($2::uuid[]))",
    [queueId, configIds],
  );
  await tracedQuery(
    client,
    "project queue configs (add)",
    `insert into annotation_queue_configs (queue_id, config_id)
       select $1, unnest($2::uuid[]) on conflict do nothing`,
    [queueId, configIds],
  );
}

/** Queues, records, assignments and annotations as their events leave them. */
export const annotationQueueProjections: Record<string, Projection> = {
  async AnnotationQueueCreated(client, d) {
    await tracedQuery(
      client,
      "project AnnotationQueueCreated",
      `insert into annotation_queues (id, account_id, space_id, name, instructions, assignment_method,
           annotation_config_ids, annotators, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
      [
        d.id,
        d.account_id,
        d.space_id,
        d.name,
        d.instructions,
        d.assignment_method,
        d.annotation_config_ids,
        JSON.stringify(d.annotators),
        d.created_at,
      ],
    );
    await useConfigs(client, d.id, d.annotation_config_ids);
    await registerResource(client, {
      type: "annotation_queue",
      id: d.id as string,
      accountId: d.account_id as string,
      spaceId: d.space_id as string,
    });
  },
  async AnnotationQueueUpdated(client, d) {
    await tracedQuery(
      client,
      "project AnnotationQueueUpdated",
      `update annotation_queues set name = $2, instructions = $3, annotation_config_ids = $4,
           annotators = $5, updated_at = $6
         where id = $1`,
      [
        d.id,
        d.name,
        d.instructions,
        d.annotation_config_ids,
        JSON.stringify(d.annotators),
        d.updated_at,
      ],
    );
    await useConfigs(client, d.id, d.annotation_config_ids);
  },
  async AnnotationQueueDeleted(client, d) {
    await tracedQuery(
      client,
      "project AnnotationQueueDeleted",
      "delete from annotation_queues where id = $1",
      [d.id],
    );
    await unregisterResource(client, "annotation_queue", d.id as string);
  },
  AnnotationQueueRecordsAdded(client, d) {
    const records = d.records as QueueRecord[];
    // Set-based: one statement for up to 500 records.
    return tracedQuery(
      client,
      "project AnnotationQueueRecordsAdded",
      `insert into annotation_queue_records (id, queue_id, source_type, granularity, data, assigned_users, created_at)
         select r.id, $1, r.source_type, r.granularity, r.data, r.assigned_users, $2
           from unnest($3::uuid[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[])
             as r (id, source_type, granularity, data, assigned_users)`,
      [
        d.queue_id,
        d.added_at,
        records.map((r) => r.id),
        records.map((r) => r.source_type),
        records.map((r) => r.granularity),
        records.map((r) => JSON.stringify(r.data)),
        records.map((r) => pending(r.assignees)),
      ],
    );
  },
  AnnotationQueueRecordsDeleted: (client, d) =>
    tracedQuery(
      client,
      "project AnnotationQueueRecordsDeleted",
      "delete from annotation_queue_records where queue_id = $1 and id = any($2::uuid[])",
      [d.queue_id, d.record_ids],
    ),
  AnnotationQueueRecordAssigned: (client, d) =>
    tracedQuery(
      client,
      "project AnnotationQueueRecordAssigned",
      "update annotation_queue_records set assigned_users = $2 where id = $1",
      [d.record_id, pending(d.assignees as Annotator[])],
    ),
  async AnnotationQueueRecordAnnotated(client, d) {
    const annotations = d.annotations as AnnotationValue[];
    const annotator = d.annotator as Annotator;
    // Upsert by config name; an omitted field keeps its stored value.
    await tracedQuery(
      client,
      "project AnnotationQueueRecordAnnotated",
      `insert into annotation_queue_record_annotations (record_id, name, score, label, text, annotator, updated_at)
         select $1, a.name, a.score, a.label, a.text, $2, $3
           from unnest($4::text[], $5::float8[], $6::text[], $7::text[]) as a (name, score, label, text)
         on conflict (record_id, name) do update set
           score = coalesce(excluded.score, annotation_queue_record_annotations.score),
           label = coalesce(excluded.label, annotation_queue_record_annotations.label),
           text = coalesce(excluded.text, annotation_queue_record_annotations.text),
           annotator = excluded.annotator,
           updated_at = excluded.updated_at`,
      [
        d.record_id,
        JSON.stringify(annotator),
        d.annotated_at,
        annotations.map((a) => a.name),
        annotations.map((a) => a.score),
        annotations.map((a) => a.label),
        annotations.map((a) => a.text),
      ],
    );
    // The annotator's own assignment, if any, is now complete.
    await tracedQuery(
      client,
      "complete assignment",
      `update annotation_queue_records set assigned_users = (
           select coalesce(jsonb_agg(case when u -> 'user' ->> 'user_id' = $2
             then jsonb_set(u, '{completion_status}', '"COMPLETED"') else u end), '[]'::jsonb)
           from jsonb_array_elements(assigned_users) u)
         where id = $1`,
      [d.record_id, annotator.user_id],
    );
  },
};
