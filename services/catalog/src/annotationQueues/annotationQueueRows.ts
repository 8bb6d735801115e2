import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { Annotator } from "@argus/contracts";
import type { AnnotationQueue, AnnotationQueueRecord } from "@argus/proto/catalog/v1/annotations";
import {
  toAnnotationConfig,
  type AnnotationConfigRow,
} from "../annotationConfigs/annotationConfigRows.ts";
import { rowById, type SpaceRow } from "@argus/spaces";

export interface QueueRow extends SpaceRow {
  name: string;
  instructions: string | null;
  assignment_method: string;
  annotation_config_ids: string[];
  annotators: Annotator[];
  created_at: Date;
  updated_at: Date;
  column_allowlist: string[] | null;
}

export const QUEUE_COLUMNS = `id, account_id, space_id, name, instructions, assignment_method,
  annotation_config_ids, annotators, created_at, updated_at, column_allowlist`;

export interface RecordRow {
  id: string;
  queue_id: string;
  source_type: string;
  granularity: string | null;
  data: Record<string, unknown>;
  assigned_users: { user: Annotator; completion_status: string }[];
  annotations: {
    name: string;
    score: number | null;
    label: string | null;
    text: string | null;
    annotator: Annotator;
    updated_at: string;
  }[];
}

const RECORD_SELECT = `select r.id, r.queue_id, r.source_type, r.granularity, r.data, r.assigned_users,
    coalesce((select jsonb_agg(jsonb_build_object('name', a.name, 'score', a.score, 'label', a.label,
        'text', a.text, 'annotator', a.annotator, 'updated_at', a.updated_at) order by a.name)
      from annotation_queue_record_annotations a where a.record_id = r.id), '[]'::jsonb) as annotations
  from annotation_queue_records r`;

const annotator = (a: Annotator) => ({ userId: a.user_id, email: a.email });

export function toQueue(q: QueueRow, configs: AnnotationConfigRow[]): AnnotationQueue {
  const byId = new Map(configs.map((c) => [c.id, c]));
  return {
    id: q.id,
    spaceId: q.space_id,
    name: q.name,
    ...(q.instructions === null ? {} : { instructions: q.instructions }),
    annotationConfigs: q.annotation_config_ids
      .map((id) => byId.get(id))
      .filter((c) => c !== undefined)
      .map(toAnnotationConfig),
    annotators: q.annotators.map(annotator),
    assignmentMethod: q.assignment_method,
    ...(q.column_allowlist === null
      ? {}
      : { columnAllowlistJson: JSON.stringify(q.column_allowlist) }),
    createdAt: q.created_at.toISOString(),
    updatedAt: q.updated_at.toISOString(),
  };
}

export function toRecord(r: RecordRow): AnnotationQueueRecord {
  return {
    id: r.id,
    annotationQueueId: r.queue_id,
    sourceType: r.source_type,
    granularity: r.granularity ?? "",
    dataJson: JSON.stringify(r.data),
    annotations: r.annotations.map((a) => ({
      name: a.name,
      ...(a.score === null ? {} : { score: a.score }),
      ...(a.label === null ? {} : { label: a.label }),
      ...(a.text === null ? {} : { text: a.text }),
      updatedAt: new Date(a.updated_at).toISOString(),
      annotator: annotator(a.annotator),
    })),
    assignedUsers: r.assigned_users.map((u) => ({
      user: annotator(u.user),
      completionStatus: u.completion_status,
    })),
  };
}

export const findQueue = (pool: Pool, id: string) =>
  rowById<QueueRow>(pool, "annotation_queues", QUEUE_COLUMNS, id);

export async function queueRecords(
  db: Pool | PoolClient,
  where: string,
  values: unknown[],
): Promise<RecordRow[]> {
  const res = await tracedQuery<RecordRow>(
    db,
    "queue records",
    `${RECORD_SELECT} ${where}`,
    values,
  );
  return res.rows;
}
