import { tracedQuery, type Projections } from "@argus/eventstore";
import type { AnnotationQueueEvent, Annotator } from "@argus/contracts";

type RecordEvent = Extract<AnnotationQueueEvent, { data: { queue_id: string } }>;

const pending = (users: Annotator[]) =>
  JSON.stringify(users.map((user) => ({ user, completion_status: "PENDING" })));

/** A queue's records, their assignments and annotations as their events leave them. */
export const annotationRecordProjections: Projections<RecordEvent> = {
  AnnotationQueueRecordsAdded: (client, d) =>
    // Set-based: one statement for up to 500 records.
    tracedQuery(
      client,
      "project AnnotationQueueRecordsAdded",
      `insert into annotation_queue_records (id, queue_id, source_type, granularity, data, assigned_users, created_at)
         select r.id, $1, r.source_type, r.granularity, r.data, r.assigned_users, $2
           from unnest($3::uuid[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[])
             as r (id, source_type, granularity, data, assigned_users)`,
      [
        d.queue_id,
        d.added_at,
        d.records.map((r) => r.id),
        d.records.map((r) => r.source_type),
        d.records.map((r) => r.granularity),
        d.records.map((r) => JSON.stringify(r.data)),
        d.records.map((r) => pending(r.assignees)),
      ],
    ),
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
      [d.record_id, pending(d.assignees)],
    ),
  async AnnotationQueueRecordAnnotated(client, d) {
    const { annotations, annotator } = d;
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
