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
  AnnotationConfig,
  CategoricalValue as ProtoValue,
  CreateAnnotationConfigRequest,
  DeleteAnnotationConfigRequest,
  DeleteAnnotationConfigResponse,
  GetAnnotationConfigRequest,
  ListAnnotationConfigsRequest,
  ListAnnotationConfigsResponse,
  UpdateAnnotationConfigRequest,
} from "@argus/proto/catalog/v1/annotations";
import type { Pool } from "pg";
import { commit } from "./commit.ts";
import {
  annotationConfigStateOf,
  decideAnnotationConfig,
  initialAnnotationConfigState,
  type AnnotationConfigEvent,
  type CategoricalValue,
} from "./domain/annotationConfig.ts";
import {
  listableSpaceIds,
  requireCreatable,
  requirePermission,
  requireReadable,
} from "./spaceAccess.ts";
import type { Spaces } from "./spaces.ts";

type Deps = { pool: Pool; store: EventStore; spaces: Spaces };

export interface AnnotationConfigRow {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
  type: string;
  minimum_score: number | null;
  maximum_score: number | null;
  values: CategoricalValue[];
  optimization_direction: string | null;
  created_at: Date;
}

export const ANNOTATION_CONFIG_COLUMNS = `id, account_id, space_id, name, type, minimum_score, maximum_score, "values",
  optimization_direction, created_at`;

export function toAnnotationConfig(r: AnnotationConfigRow): AnnotationConfig {
  return {
    id: r.id,
    spaceId: r.space_id,
    name: r.name,
    type: r.type,
    ...(r.minimum_score === null ? {} : { minimumScore: r.minimum_score }),
    ...(r.maximum_score === null ? {} : { maximumScore: r.maximum_score }),
    values: r.values.map((v) => ({
      label: v.label,
      ...(v.score === null ? {} : { score: v.score }),
    })),
    optimizationDirection: r.optimization_direction ?? "",
    createdAt: r.created_at.toISOString(),
  };
}

const valuesOf = (values: ProtoValue[]): CategoricalValue[] =>
  values.map((v) => ({ label: v.label, score: v.score ?? null }));

const nameConflict = (name: string) => ({
  annotation_configs_name_per_space: `an annotation config named ${JSON.stringify(name)} already exists in this space`,
});

const inUse = {
  annotation_queue_configs_config_fk:
    "the annotation config is used by an annotation queue; remove it there first",
};

export function annotationConfigHandlers(deps: Deps) {
  const { pool, store, spaces } = deps;

  async function row(ctx: CallContext, id: string): Promise<AnnotationConfigRow> {
    const res = await tracedQuery<AnnotationConfigRow>(
      pool,
      "get annotation config",
      `select ${ANNOTATION_CONFIG_COLUMNS} from annotation_configs where id = $1`,
      [id],
    );
    const found = res.rows[0];
    requireReadable(ctx, found, "ANNOTATION_CONFIG_READ", "annotation config");
    return found;
  }

  async function change(
    ctx: CallContext,
    id: string,
    permission: string,
    decide: (events: AnnotationConfigEvent[]) => AnnotationConfigEvent[],
    conflicts: Record<string, string> = {},
  ): Promise<AnnotationConfigRow> {
    const current = await row(ctx, id);
    requirePermission(ctx, current.space_id, permission);
    const streamId = `annotation_config-${id}`;
    const history = (await store.readStream(streamId)) as unknown as AnnotationConfigEvent[];
    const events = decide(history);
    await commit(
      store,
      streamId,
      history.length,
      events,
      { ...actorMetadata(ctx), space_id: current.space_id },
      conflicts,
    );
    return current;
  }

  return {
    async createAnnotationConfig(
      req: CreateAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      await requireCreatable(spaces, ctx, req.spaceId, "ANNOTATION_CONFIG_CREATE");
      const id = uuidv7();
      const events = decideAnnotationConfig(
        {
          type: "CreateAnnotationConfig",
          id,
          accountId: ctx.principal.accountId,
          spaceId: req.spaceId,
          name: req.name,
          configType: req.type,
          minimum_score: req.minimumScore ?? null,
          maximum_score: req.maximumScore ?? null,
          values: valuesOf(req.values),
          optimization_direction: req.optimizationDirection || null,
          now: new Date(),
        },
        initialAnnotationConfigState,
      );
      await commit(
        store,
        `annotation_config-${id}`,
        0,
        events,
        { ...actorMetadata(ctx), space_id: req.spaceId },
        nameConflict(req.name),
      );
      return toAnnotationConfig(await row(ctx, id));
    },

    async listAnnotationConfigs(
      req: ListAnnotationConfigsRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationConfigsResponse> {
      const spaceIds = await listableSpaceIds(
        spaces,
        ctx,
        { spaceId: req.spaceId, spaceName: req.spaceName },
        "ANNOTATION_CONFIG_READ",
      );
      const res = await tracedQuery<AnnotationConfigRow>(
        pool,
        "list annotation configs",
        `select ${ANNOTATION_CONFIG_COLUMNS} from annotation_configs
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
      return { annotationConfigs: items.map(toAnnotationConfig), page: { nextAfter } };
    },

    async getAnnotationConfig(
      req: GetAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      return toAnnotationConfig(await row(ctx, req.id));
    },

    async updateAnnotationConfig(
      req: UpdateAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      const now = new Date();
      const current = await change(
        ctx,
        req.id,
        "ANNOTATION_CONFIG_UPDATE",
        (history) =>
          decideAnnotationConfig(
            {
              type: "UpdateAnnotationConfig",
              configType: req.type,
              ...(req.name === undefined ? {} : { name: req.name }),
              ...(req.minimumScore === undefined ? {} : { minimum_score: req.minimumScore }),
              ...(req.maximumScore === undefined ? {} : { maximum_score: req.maximumScore }),
              ...(req.setValues ? { values: valuesOf(req.values) } : {}),
              ...(req.optimizationDirection === undefined
                ? {}
                : { optimization_direction: req.optimizationDirection }),
              now,
            },
            annotationConfigStateOf(history),
          ),
        nameConflict(req.name ?? ""),
      );
      return toAnnotationConfig(await row(ctx, current.id));
    },

    async deleteAnnotationConfig(
      req: DeleteAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationConfigResponse> {
      // The check below answers the common case; a queue taking the config up between it and
      // the commit trips the queue-config foreign key (migration 0025), the same 409.
      const used = await tracedQuery(
        pool,
        "annotation config in use",
        "select 1 from annotation_queues where $1 = any(annotation_config_ids) limit 1",
        [req.id],
      );
      await change(
        ctx,
        req.id,
        "ANNOTATION_CONFIG_DELETE",
        (history) => {
          // Checked after authorization, so a caller who may not delete learns nothing more.
          if (used.rowCount)
            throw new DomainError("resource-conflict", inUse.annotation_queue_configs_config_fk);
          return decideAnnotationConfig(
            { type: "DeleteAnnotationConfig", now: new Date() },
            annotationConfigStateOf(history),
          );
        },
        inUse,
      );
      return {};
    },
  };
}
