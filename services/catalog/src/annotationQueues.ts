import {
  DomainError,
  actorMetadata,
  fetchSize,
  pageOf,
  uuidv7,
  type CallContext,
} from "@argus/platform";
import { tracedQuery, type EventStore } from "@argus/eventstore";
import type {
  AddAnnotationQueueRecordsRequest,
  AddAnnotationQueueRecordsResponse,
  AnnotateAnnotationQueueRecordRequest,
  AnnotationQueue,
  AnnotationQueueRecord,
  AssignAnnotationQueueRecordRequest,
  CreateAnnotationQueueRequest,
  DeleteAnnotationQueueRecordsRequest,
  DeleteAnnotationQueueRecordsResponse,
  DeleteAnnotationQueueRequest,
  DeleteAnnotationQueueResponse,
  GetAnnotationQueueRequest,
  ListAnnotationQueueRecordsRequest,
  ListAnnotationQueueRecordsResponse,
  ListAnnotationQueuesRequest,
  ListAnnotationQueuesResponse,
  UpdateAnnotationQueueRequest,
} from "@argus/proto/catalog/v1/annotations";
import { ANNOTATION_CONFIG_COLUMNS, type AnnotationConfigRow } from "./annotationConfigs.ts";
import {
  QUEUE_COLUMNS,
  RECORD_SELECT,
  toQueue,
  toRecord,
  type QueueRow,
  type RecordRow,
} from "./annotationQueuesRows.ts";
import { resolveRecordSources, type RecordPorts } from "./annotationQueuesSources.ts";
import type { QueueUsers } from "./annotationQueuesUsers.ts";
import { commit } from "./commit.ts";
import {
  annotationQueueStateOf,
  decideAnnotationQueue,
  type AnnotationQueueCommand,
  type AnnotationQueueEvent,
} from "./domain/annotationQueue.ts";
import {
  listableSpaceIds,
  requireCreatable,
  requirePermission,
  requireReadable,
} from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";

type Deps = RecordPorts & { store: EventStore; spaces: Spaces; users: QueueUsers };

const nameConflict = (name: string) => ({
  annotation_queues_name_per_space: `an annotation queue named ${JSON.stringify(name)} already exists in this space`,
  // A config the command checked was deleted before it committed (the foreign key saw it).
  annotation_queue_configs_config_fk: "an annotation config of the queue was deleted concurrently",
});

export function annotationQueueHandlers(deps: Deps) {
  const { pool, store, spaces, users } = deps;

  async function queueRow(ctx: CallContext, id: string): Promise<QueueRow> {
    const res = await tracedQuery<QueueRow>(
      pool,
      "get annotation queue",
      `select ${QUEUE_COLUMNS} from annotation_queues where id = $1`,
      [id],
    );
    const row = res.rows[0];
    requireReadable(ctx, row, "QUEUE_READ", "annotation queue");
    return row;
  }

  async function configsOf(rows: QueueRow[]): Promise<AnnotationConfigRow[]> {
    const ids = [...new Set(rows.flatMap((r) => r.annotation_config_ids))];
    if (ids.length === 0) return [];
    const res = await tracedQuery<AnnotationConfigRow>(
      pool,
      "queue annotation configs",
      `select ${ANNOTATION_CONFIG_COLUMNS} from annotation_configs where id = any($1::uuid[])`,
      [ids],
    );
    return res.rows;
  }

  const present = async (ctx: CallContext, id: string): Promise<AnnotationQueue> => {
    const row = await queueRow(ctx, id);
    return toQueue(row, await configsOf([row]));
  };

  /** Every config must exist in the queue's space (422 otherwise, like a tag of another space). */
  async function requireConfigsInSpace(ids: string[], spaceId: string): Promise<void> {
    const res = await tracedQuery<{ id: string }>(
      pool,
      "configs in space",
      "select id from annotation_configs where id = any($1::uuid[]) and space_id = $2",
      [ids, spaceId],
    );
    if (res.rowCount !== new Set(ids).size)
      throw new DomainError(
        "unprocessable-entity",
        "every annotation config must exist in the queue's space",
      );
  }

  async function records(where: string, values: unknown[]): Promise<RecordRow[]> {
    const res = await tracedQuery<RecordRow>(
      pool,
      "queue records",
      `${RECORD_SELECT} ${where}`,
      values,
    );
    return res.rows;
  }

  /** Load (fold the stream), decide, commit at the version decided on. */
  async function execute(
    ctx: CallContext,
    queue: QueueRow,
    command: AnnotationQueueCommand,
    conflicts: Record<string, string> = {},
  ): Promise<AnnotationQueueEvent[]> {
    const streamId = `annotation_queue-${queue.id}`;
    const history = (await store.readStream(streamId)) as unknown as AnnotationQueueEvent[];
    const events = decideAnnotationQueue(command, annotationQueueStateOf(history));
    if (events.length > 0)
      await commit(
        store,
        streamId,
        history.length,
        events,
        { ...actorMetadata(ctx), space_id: queue.space_id },
        conflicts,
      );
    return events;
  }

  async function changeable(ctx: CallContext, id: string, permission: string) {
    const queue = await queueRow(ctx, id);
    requirePermission(ctx, queue.space_id, permission);
    return queue;
  }

  return {
    async createAnnotationQueue(
      req: CreateAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueue> {
      await requireCreatable(spaces, ctx, req.spaceId, "QUEUE_CREATE");
      if (req.recordSources.length > 0) requirePermission(ctx, req.spaceId, "QUEUE_RECORD_CREATE");
      await requireConfigsInSpace(req.annotationConfigIds, req.spaceId);
      const annotators = await users.byEmails(ctx, req.annotatorEmails);
      const assignmentMethod = req.assignmentMethod || "ALL";
      const id = uuidv7();
      const resolved = await resolveRecordSources(deps, ctx, req.spaceId, req.recordSources, {
        annotators,
        assignmentMethod,
      });
      const events = decideAnnotationQueue(
        {
          type: "CreateAnnotationQueue",
          id,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          instructions: req.instructions ?? null,
          configIds: req.annotationConfigIds,
          annotators,
          assignmentMethod,
          ...resolved,
          now: new Date(),
        },
        annotationQueueStateOf([]),
      );
      await commit(
        store,
        `annotation_queue-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: req.spaceId },
        nameConflict(req.name),
      );
      return present(ctx, id);
    },

    async listAnnotationQueues(
      req: ListAnnotationQueuesRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationQueuesResponse> {
      const spaceIds = await listableSpaceIds(
        spaces,
        ctx,
        { spaceId: req.spaceId, spaceName: req.spaceName },
        "QUEUE_READ",
      );
      const res = await tracedQuery<QueueRow>(
        pool,
        "list annotation queues",
        `select ${QUEUE_COLUMNS} from annotation_queues
          where account_id = $1
            and ($2::uuid[] is null or space_id = any($2::uuid[]))
            and ($3::text is null or strpos(lower(name), lower($3)) > 0)
            and ($4::uuid is null or id < $4)
          order by id desc
          limit $5`,
        [
          ctx.principal.accountId,
          spaceIds,
          req.name || null,
          req.page?.after || null,
          fetchSize(req.page),
        ],
      );
      const { items, nextAfter } = pageOf(res.rows, req.page, (r) => r.id);
      const configs = await configsOf(items);
      return { annotationQueues: items.map((q) => toQueue(q, configs)), page: { nextAfter } };
    },

    getAnnotationQueue: (req: GetAnnotationQueueRequest, ctx: CallContext) => present(ctx, req.id),

    async updateAnnotationQueue(
      req: UpdateAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueue> {
      const queue = await changeable(ctx, req.id, "QUEUE_UPDATE");
      if (req.setAnnotationConfigIds)
        await requireConfigsInSpace(req.annotationConfigIds, queue.space_id);
      const annotators = req.setAnnotatorEmails
        ? await users.byEmails(ctx, req.annotatorEmails)
        : undefined;
      await execute(
        ctx,
        queue,
        {
          type: "UpdateAnnotationQueue",
          ...(req.name === undefined ? {} : { name: req.name }),
          ...(req.setInstructions ? { instructions: req.instructions ?? null } : {}),
          ...(req.setAnnotationConfigIds ? { configIds: req.annotationConfigIds } : {}),
          ...(annotators ? { annotators } : {}),
          now: new Date(),
        },
        nameConflict(req.name ?? queue.name),
      );
      return present(ctx, queue.id);
    },

    async deleteAnnotationQueue(
      req: DeleteAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationQueueResponse> {
      const queue = await changeable(ctx, req.id, "QUEUE_DELETE");
      await execute(ctx, queue, { type: "DeleteAnnotationQueue", now: new Date() });
      return {};
    },

    async listAnnotationQueueRecords(
      req: ListAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationQueueRecordsResponse> {
      const queue = await changeable(ctx, req.annotationQueueId, "QUEUE_RECORD_READ");
      const rows = await records(
        "where r.queue_id = $1 and ($2::uuid is null or r.id < $2) order by r.id desc limit $3",
        [queue.id, req.page?.after || null, fetchSize(req.page)],
      );
      const { items, nextAfter } = pageOf(rows, req.page, (r) => r.id);
      return { records: items.map(toRecord), page: { nextAfter } };
    },

    async addAnnotationQueueRecords(
      req: AddAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<AddAnnotationQueueRecordsResponse> {
      const queue = await changeable(ctx, req.annotationQueueId, "QUEUE_RECORD_CREATE");
      const resolved = await resolveRecordSources(deps, ctx, queue.space_id, req.recordSources, {
        annotators: queue.annotators,
        assignmentMethod: queue.assignment_method,
      });
      await execute(ctx, queue, { type: "AddRecords", ...resolved, now: new Date() });
      const ids = resolved.records.map((r) => r.id);
      const rows = await records("where r.id = any($1::uuid[]) order by r.id", [ids]);
      return { records: rows.map(toRecord) };
    },

    async deleteAnnotationQueueRecords(
      req: DeleteAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationQueueRecordsResponse> {
      const queue = await changeable(ctx, req.annotationQueueId, "QUEUE_RECORD_DELETE");
      await execute(ctx, queue, {
        type: "DeleteRecords",
        recordIds: req.recordIds,
        now: new Date(),
      });
      return {};
    },

    async assignAnnotationQueueRecord(
      req: AssignAnnotationQueueRecordRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueueRecord> {
      const queue = await changeable(ctx, req.annotationQueueId, "QUEUE_RECORD_UPDATE");
      const assignees = await users.byEmails(ctx, req.assignedUserEmails);
      await execute(ctx, queue, {
        type: "AssignRecord",
        recordId: req.recordId,
        assignees,
        now: new Date(),
      });
      const [row] = await records("where r.id = $1", [req.recordId]);
      return toRecord(row!);
    },

    async annotateAnnotationQueueRecord(
      req: AnnotateAnnotationQueueRecordRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueueRecord> {
      const queue = await changeable(ctx, req.annotationQueueId, "QUEUE_RECORD_ANNOTATE");
      const configs = await configsOf([queue]);
      await execute(ctx, queue, {
        type: "AnnotateRecord",
        recordId: req.recordId,
        annotator: await users.caller(ctx),
        annotations: req.annotations.map((a) => ({
          name: a.name,
          score: a.score ?? null,
          label: a.label ?? null,
          text: a.text ?? null,
        })),
        configNames: configs.map((c) => c.name),
        now: new Date(),
      });
      const [row] = await records("where r.id = $1", [req.recordId]);
      return toRecord(row!);
    },
  };
}
