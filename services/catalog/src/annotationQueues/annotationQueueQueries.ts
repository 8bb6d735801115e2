import type { Pool } from "pg";
import { fetchSize, pageOf, type CallContext } from "@argus/platform";
import type {
  AnnotationQueue,
  GetAnnotationQueueRequest,
  ListAnnotationQueueRecordsRequest,
  ListAnnotationQueueRecordsResponse,
  ListAnnotationQueuesRequest,
  ListAnnotationQueuesResponse,
} from "@argus/proto/catalog/v1/annotations";
import { ACCESS } from "../shared/access.ts";
import { annotationConfigsById } from "../annotationConfigs/annotationConfigRows.ts";
import {
  QUEUE_COLUMNS,
  findQueue,
  queueRecords,
  toQueue,
  toRecord,
  type QueueRow,
} from "./annotationQueueRows.ts";
import { authorized, type Spaces } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { listInSpaces } from "../shared/listInSpaces.ts";

/** The public API lists up to 500 records of a queue per page (other lists: 100). */
const RECORDS_PAGE_MAX = 500;

/** The queue as the caller may read it, with its annotation configs. */
export async function presentQueue(
  { pool, spaces }: { pool: Pool; spaces: Spaces },
  ctx: CallContext,
  id: string,
): Promise<AnnotationQueue> {
  const row = await authorized(spaces, ctx, await findQueue(pool, id), ACCESS.annotationQueue);
  return toQueue(row, await annotationConfigsById(pool, row.annotation_config_ids));
}

export function annotationQueueQueries(deps: CatalogDeps) {
  const { pool } = deps;
  return {
    async listAnnotationQueues(
      req: ListAnnotationQueuesRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationQueuesResponse> {
      const list = {
        table: "annotation_queues",
        columns: QUEUE_COLUMNS,
        read: "QUEUE_READ",
        order: "id",
      } as const;
      const { items, nextAfter } = await listInSpaces<QueueRow>(deps, ctx, req, list);
      const configs = await annotationConfigsById(
        pool,
        items.flatMap((r) => r.annotation_config_ids),
      );
      return { annotationQueues: items.map((q) => toQueue(q, configs)), page: { nextAfter } };
    },

    getAnnotationQueue: (req: GetAnnotationQueueRequest, ctx: CallContext) =>
      presentQueue(deps, ctx, req.id),

    async listAnnotationQueueRecords(
      req: ListAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationQueueRecordsResponse> {
      const queue = await authorized(
        deps.spaces,
        ctx,
        await findQueue(pool, req.annotationQueueId),
        ACCESS.annotationQueue,
        "QUEUE_RECORD_READ",
      );
      const rows = await queueRecords(
        pool,
        "where r.queue_id = $1 and ($2::uuid is null or r.id < $2) order by r.id desc limit $3",
        [queue.id, req.page?.after || null, fetchSize(req.page, RECORDS_PAGE_MAX)],
      );
      const { items, nextAfter } = pageOf(rows, req.page, (r) => r.id, RECORDS_PAGE_MAX);
      return { records: items.map(toRecord), page: { nextAfter } };
    },
  };
}
