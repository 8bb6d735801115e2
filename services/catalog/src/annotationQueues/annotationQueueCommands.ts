import { DomainError, type CallContext } from "@argus/platform";
import { requireCreatable } from "@argus/spaces";
import type {
  AnnotationQueue,
  CreateAnnotationQueueRequest,
  DeleteAnnotationQueueRequest,
  DeleteAnnotationQueueResponse,
  UpdateAnnotationQueueRequest,
} from "@argus/proto/catalog/v1/annotations";
import { resolveRecordSources } from "./annotationQueueRecordSources.ts";
import { presentQueue } from "./annotationQueueQueries.ts";
import type { CatalogDeps } from "../deps.ts";
import { configsInSpace } from "../annotationConfigs/annotationConfigFacts.ts";
import { annotationQueueKind } from "./annotationQueueKind.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

/** A column allowlist as the gateway passes it: a JSON array of names, or null (unrestricted). */
function allowlistOf(json: string | undefined): string[] | null | undefined {
  if (json === undefined) return undefined;
  const v = JSON.parse(json) as unknown;
  if (v === null) return null;
  if (!Array.isArray(v) || v.some((c) => typeof c !== "string"))
    throw new DomainError("invalid-request", "column_allowlist must be a list of column names");
  return v as string[];
}

const nameConflict = (name: string) => ({
  annotation_queues_name_per_space: `an annotation queue named ${JSON.stringify(name)} already exists in this space`,
  // A config the command checked was deleted before it committed (the foreign key saw it).
  annotation_queue_configs_config_fk: "an annotation config of the queue was deleted concurrently",
});

/** Create, update and delete of annotation queues (their records: annotationQueueRecordCommands.ts). */
export function annotationQueueCommands(deps: CatalogDeps) {
  const queues = resourceCommands(deps, annotationQueueKind);

  return {
    async createAnnotationQueue(
      req: CreateAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueue> {
      const { spaceId, annotationConfigIds: configIds } = req;
      const { id } = await queues.create(
        ctx,
        spaceId,
        "QUEUE_CREATE",
        async (id) => {
          if (req.recordSources.length > 0)
            await requireCreatable(deps.spaces, ctx, spaceId, "QUEUE_RECORD_CREATE");
          const annotators = await deps.users.byEmails(ctx, req.annotatorEmails);
          const resolved = await resolveRecordSources(deps, ctx, spaceId, req.recordSources);
          const command = {
            type: "CreateAnnotationQueue",
            id,
            accountId: ctx.principal.accountId,
            spaceId,
            name: req.name,
            instructions: req.instructions ?? null,
            configIds,
            annotators,
            assignmentMethod: req.assignmentMethod || "ALL",
            columnAllowlist: allowlistOf(req.columnAllowlistJson) ?? null,
            ...resolved,
            now: deps.clock.now(),
          } as const;
          return {
            build: async (_, client) => ({
              ...command,
              configsInSpace: await configsInSpace(client, configIds, spaceId),
            }),
          };
        },
        nameConflict(req.name),
      );
      return presentQueue(deps, ctx, id);
    },

    async updateAnnotationQueue(
      req: UpdateAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<AnnotationQueue> {
      const queue = await queues.load(ctx, req.id, "QUEUE_UPDATE");
      const annotators = req.setAnnotatorEmails
        ? await deps.users.byEmails(ctx, req.annotatorEmails)
        : undefined;
      const configIds = req.setAnnotationConfigIds ? req.annotationConfigIds : undefined;
      const command = {
        type: "UpdateAnnotationQueue",
        name: req.name,
        ...(req.setInstructions ? { instructions: req.instructions ?? null } : {}),
        annotators,
        configIds,
        ...(req.columnAllowlistJson === undefined
          ? {}
          : { columnAllowlist: allowlistOf(req.columnAllowlistJson) ?? null }),
        now: deps.clock.now(),
      } as const;
      await queues.run(
        ctx,
        queue.id,
        queue.space_id,
        {
          build: async (_, client) => ({
            ...command,
            configsInSpace: configIds && (await configsInSpace(client, configIds, queue.space_id)),
          }),
        },
        nameConflict(req.name ?? ""),
      );
      return presentQueue(deps, ctx, queue.id);
    },

    async deleteAnnotationQueue(
      req: DeleteAnnotationQueueRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationQueueResponse> {
      const command = { type: "DeleteAnnotationQueue", now: deps.clock.now() } as const;
      await queues.change(ctx, req.id, "QUEUE_DELETE", command);
      return {};
    },
  };
}
