import type { PoolClient } from "pg";
import { tracedQuery, type Projections } from "@argus/eventstore";
import type { AnnotationQueueEvent, Annotator } from "@argus/contracts";
import { registerResource, unregisterResource } from "../shared/resourceRegistry.ts";
import { annotationRecordProjections } from "./annotationQueueRecordProjection.ts";

/** The queue's rows in annotation_queue_configs: their foreign key guards config deletes. */
async function useConfigs(client: PoolClient, queueId: string, configIds: string[]) {
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

const annotators = (users: Annotator[]): string => JSON.stringify(users);

/** Queues as their events leave them; records, assignments and annotations in their own file. */
export const annotationQueueProjections: Projections<AnnotationQueueEvent> = {
  async AnnotationQueueCreated(client, d) {
    await tracedQuery(
      client,
      "project AnnotationQueueCreated",
      `insert into annotation_queues (id, account_id, space_id, name, instructions, assignment_method,
           annotation_config_ids, annotators, created_at, updated_at, column_allowlist)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10::jsonb)`,
      [
        d.id,
        d.account_id,
        d.space_id,
        d.name,
        d.instructions,
        d.assignment_method,
        d.annotation_config_ids,
        annotators(d.annotators),
        d.created_at,
        JSON.stringify(d.column_allowlist ?? null),
      ],
    );
    await useConfigs(client, d.id, d.annotation_config_ids);
    await registerResource(client, "annotation_queue", d);
  },
  async AnnotationQueueUpdated(client, d) {
    await tracedQuery(
      client,
      "project AnnotationQueueUpdated",
      `update annotation_queues set name = $2, instructions = $3, annotation_config_ids = $4,
           annotators = $5, updated_at = $6,
           column_allowlist = case when $7::boolean then $8::jsonb else column_allowlist end
         where id = $1`,
      [
        d.id,
        d.name,
        d.instructions,
        d.annotation_config_ids,
        annotators(d.annotators),
        d.updated_at,
        d.column_allowlist !== undefined,
        JSON.stringify(d.column_allowlist ?? null),
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
    await unregisterResource(client, "annotation_queue", d.id);
  },
  ...annotationRecordProjections,
};
