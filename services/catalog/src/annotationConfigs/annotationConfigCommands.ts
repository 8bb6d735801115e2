import type { CallContext } from "@argus/platform";
import type {
  AnnotationConfig,
  CategoricalValue as ProtoValue,
  CreateAnnotationConfigRequest,
  DeleteAnnotationConfigRequest,
  DeleteAnnotationConfigResponse,
  UpdateAnnotationConfigRequest,
} from "@argus/proto/catalog/v1/annotations";
import type { CategoricalValue } from "@argus/contracts";
import { ACCESS } from "../shared/access.ts";
import { CONFIG_IN_USE, annotationConfigDecider } from "./annotationConfigDecider.ts";
import { findAnnotationConfig, toAnnotationConfig } from "./annotationConfigRows.ts";
import type { CatalogDeps } from "../deps.ts";
import { configInUse } from "./annotationConfigFacts.ts";
import { resourceCommands } from "../shared/resourceCommands.ts";

const valuesOf = (values: ProtoValue[]): CategoricalValue[] =>
  values.map((v) => ({ label: v.label, score: v.score ?? null }));

const nameConflict = (name: string) => ({
  annotation_configs_name_per_space: `an annotation config named ${JSON.stringify(name)} already exists in this space`,
});

/** Create, update and delete of annotation configs (reads: annotationConfigQueries.ts). */
export function annotationConfigCommands(deps: CatalogDeps) {
  const configs = resourceCommands(deps, {
    aggregate: "annotation_config",
    decider: annotationConfigDecider,
    access: ACCESS.annotationConfig,
    find: findAnnotationConfig,
  });
  const present = async (ctx: CallContext, id: string): Promise<AnnotationConfig> =>
    toAnnotationConfig(await configs.load(ctx, id));

  return {
    async createAnnotationConfig(
      req: CreateAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      const { id } = await configs.create(
        ctx,
        req.spaceId,
        "ANNOTATION_CONFIG_CREATE",
        (id) => ({
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
          now: deps.clock.now(),
        }),
        nameConflict(req.name),
      );
      return present(ctx, id);
    },

    async updateAnnotationConfig(
      req: UpdateAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      const command = {
        type: "UpdateAnnotationConfig",
        configType: req.type,
        name: req.name,
        minimum_score: req.minimumScore,
        maximum_score: req.maximumScore,
        values: req.setValues ? valuesOf(req.values) : undefined,
        optimization_direction: req.optimizationDirection,
        now: deps.clock.now(),
      } as const;
      const conflicts = nameConflict(req.name ?? "");
      const row = await configs.change(ctx, req.id, "ANNOTATION_CONFIG_UPDATE", command, conflicts);
      return present(ctx, row.id);
    },

    async deleteAnnotationConfig(
      req: DeleteAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<DeleteAnnotationConfigResponse> {
      const now = deps.clock.now();
      await configs.change(
        ctx,
        req.id,
        "ANNOTATION_CONFIG_DELETE",
        {
          build: async (_, client) => ({
            type: "DeleteAnnotationConfig",
            usedByQueue: await configInUse(client, req.id),
            now,
          }),
        },
        { annotation_queue_configs_config_fk: CONFIG_IN_USE },
      );
      return {};
    },
  };
}
