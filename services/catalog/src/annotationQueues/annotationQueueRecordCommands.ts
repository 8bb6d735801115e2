import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { CallContext, Permission } from "@argus/platform";
import type {
  AddAnnotationQueueRecordsRequest,
  AddAnnotationQueueRecordsResponse,
  AnnotateAnnotationQueueRecordRequest,
  AnnotationQueueRecord,
  AssignAnnotationQueueRecordRequest,
  DeleteAnnotationQueueRecordsRequest,
  DeleteAnnotationQueueRecordsResponse,
} from "@argus/proto/catalog/v1/annotations";
import { resolveRecordSources } from "./annotationQueueRecordSources.ts";
import { recordKey, type RecordDraft } from "./annotationQueueRecordRules.ts";
import type { AnnotationQueueCommand, AnnotationQueueState } from "./annotationQueueDecider.ts";
import { annotationConfigsById } from "../annotationConfigs/annotationConfigRows.ts";
import { queueRecords, toRecord } from "./annotationQueueRows.ts";
import { isUuid } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { annotationQueueKind } from "./annotationQueueKind.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

/** Which of `ids` are records of the queue, read in the command's transaction. */
async function recordsOfQueue(client: PoolClient, queueId: string, ids: string[]) {
  const res = await tracedQuery<{ id: string }>(
    client,
    "queue records present",
    "select id from annotation_queue_records where queue_id = $1 and id = any($2::uuid[])",
    [queueId, ids.filter(isUuid)],
  );
  return res.rows.map((r) => r.id);
}

/** The keys (recordKey) of the queue's records among those of `drafts`. */
async function heldRecords(
  client: PoolClient,
  queueId: string,
  drafts: readonly RecordDraft[],
): Promise<Set<string>> {
  const res = await tracedQuery<{
    source_type: string;
    granularity: string | null;
    data: Record<string, unknown>;
  }>(
    client,
    "queue records held",
    `select source_type, granularity, data from annotation_queue_records
      where queue_id = $1 and data = any($2::jsonb[])`,
    [queueId, drafts.map((d) => JSON.stringify(d.data))],
  );
  return new Set(res.rows.map(recordKey));
}

type Build = (state: AnnotationQueueState, client: PoolClient) => Promise<AnnotationQueueCommand>;

/**
 * A queue's records, assignments and annotations. A queue's records are facts of the
 * projection read in the command's transaction (a fold would hold every record ever added);
 * any commit to the queue's stream after that read fails the append.
 */
export function annotationQueueRecordCommands(deps: CatalogDeps) {
  const queues = resourceCommands(deps, annotationQueueKind);

  /** Authorizes first, then prepares the command (e.g. asking identity), then decides. */
  async function onQueue(
    ctx: CallContext,
    queueId: string,
    permission: Permission,
    prepare: () => Promise<Build>,
  ) {
    const queue = await queues.load(ctx, queueId, permission);
    await queues.run(ctx, queue.id, queue.space_id, { build: await prepare() });
  }

  const recordOf = async (id: string): Promise<AnnotationQueueRecord> => {
    const [row] = await queueRecords(deps.pool, "where r.id = $1", [id]);
    return toRecord(row!);
  };

  return {
    async addAnnotationQueueRecords(
      req: AddAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<AddAnnotationQueueRecordsResponse> {
      const queue = await queues.load(ctx, req.annotationQueueId, "QUEUE_RECORD_CREATE");
      const resolved = await resolveRecordSources(deps, ctx, queue.space_id, req.recordSources);
      const now = deps.clock.now();
      const { events } = await queues.run(ctx, queue.id, queue.space_id, {
        // What the queue holds is read after its stream: a concurrent add of the same source
        // fails this append, and the retry finds it held.
        build: async (_state, client) => ({
          type: "AddRecords",
          ...resolved,
          held: await heldRecords(client, queue.id, resolved.records),
          now,
        }),
      });
      const ids = events.flatMap((e) =>
        e.type === "AnnotationQueueRecordsAdded" ? e.data.records.map((r) => r.id) : [],
      );
      const rows = await queueRecords(deps.pool, "where r.id = any($1::uuid[]) order by r.id", [
        ids,
      ]);
      return { records: rows.map(toRecord) };
    },

    async deleteAnnotationQueueRecords(
      req: DeleteAnnotationQueueRecordsRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationQueueRecordsResponse> {
      const { annotationQueueId: queueId, recordIds } = req;
      await onQueue(ctx, queueId, "QUEUE_RECORD_DELETE", async () => async (_, client) => ({
        type: "DeleteRecords",
        recordIds,
        existing: await recordsOfQueue(client, queueId, recordIds),
        now: deps.clock.now(),
      }));
      return {};
    },

    async assignAnnotationQueueRecord(
      req: AssignAnnotationQueueRecordRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueueRecord> {
      const { annotationQueueId: queueId, recordId } = req;
      await onQueue(ctx, queueId, "QUEUE_RECORD_UPDATE", async () => {
        const assignees = await deps.users.byEmails(ctx, req.assignedUserEmails);
        return async (_, client) => ({
          type: "AssignRecord",
          recordId,
          exists: (await recordsOfQueue(client, queueId, [recordId])).length > 0,
          assignees,
          now: deps.clock.now(),
        });
      });
      return recordOf(recordId);
    },

    async annotateAnnotationQueueRecord(
      req: AnnotateAnnotationQueueRecordRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueueRecord> {
      const annotations = req.annotations.map((a) => ({
        name: a.name,
        score: a.score ?? null,
        label: a.label ?? null,
        text: a.text ?? null,
      }));
      const { annotationQueueId: queueId, recordId } = req;
      await onQueue(ctx, queueId, "QUEUE_RECORD_ANNOTATE", async () => {
        const annotator = await deps.users.caller(ctx);
        return async (state, client) => {
          // The names the annotations may use: the queue's configs as the stream says now.
          const configIds = state.status === "live" ? state.configIds : [];
          return {
            type: "AnnotateRecord",
            recordId,
            exists: (await recordsOfQueue(client, queueId, [recordId])).length > 0,
            annotator,
            annotations,
            configNames: (await annotationConfigsById(client, configIds)).map((c) => c.name),
            now: deps.clock.now(),
          };
        };
      });
      return recordOf(recordId);
    },
  };
}
