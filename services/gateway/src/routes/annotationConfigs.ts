import { encodeId } from "@argus/platform";
import {
  AnnotationConfigServiceService,
  type AnnotationConfig,
} from "@argus/proto/catalog/v1/annotations";
import type { Backend } from "../backend.ts";
import { pathId, spaceListQuery } from "./params.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

type ConfigBody = Body<"create_annotation_config"> | Body<"update_annotation_config">;

/** A config's type decides which scoring fields its body may carry (each schema admits only its own). */
function scoring(b: ConfigBody) {
  const continuous = b.annotation_config_type === "CONTINUOUS" ? b : undefined;
  const categorical = b.annotation_config_type === "CATEGORICAL" ? b : undefined;
  return {
    minimumScore: continuous?.minimum_score,
    maximumScore: continuous?.maximum_score,
    values: categorical?.values,
    optimizationDirection: (continuous ?? categorical)?.optimization_direction,
  };
}

export function toPublicAnnotationConfig(c: AnnotationConfig) {
  const base = {
    id: encodeId("AnnotationConfig", c.id),
    name: c.name,
    created_at: c.createdAt,
    space_id: encodeId("Space", c.spaceId),
    type: c.type,
  };
  if (c.type === "CONTINUOUS")
    return {
      ...base,
      minimum_score: c.minimumScore,
      maximum_score: c.maximumScore,
      optimization_direction: c.optimizationDirection,
    };
  if (c.type === "CATEGORICAL")
    return {
      ...base,
      values: c.values.map((v) => ({
        label: v.label,
        ...(v.score === undefined ? {} : { score: v.score }),
      })),
      optimization_direction: c.optimizationDirection,
    };
  return base;
}

const configId = (req: { params: { annotation_config_id: string } }): string => {
  const id = pathId("AnnotationConfig", req.params.annotation_config_id, "annotation config");
  return id;
};

export function annotationConfigHandlers(catalog: Backend): ResourceHandlers<"annotation-configs"> {
  const S = AnnotationConfigServiceService;
  return {
    async list_annotation_configs(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("annotation_configs", []);
      const res = await catalog.call(S.listAnnotationConfigs, query, req);
      return listPage(
        "annotation_configs",
        res.annotationConfigs.map(toPublicAnnotationConfig),
        res.page,
      );
    },

    async create_annotation_config(req) {
      const b = req.body;
      const s = scoring(b);
      const spaceId = pathId("Space", b.space_id, "space");
      const res = await catalog.call(
        S.createAnnotationConfig,
        {
          spaceId,
          name: b.name ?? "",
          type: b.annotation_config_type,
          ...(s.minimumScore === undefined ? {} : { minimumScore: s.minimumScore }),
          ...(s.maximumScore === undefined ? {} : { maximumScore: s.maximumScore }),
          values: s.values ?? [],
          optimizationDirection: s.optimizationDirection ?? "",
        },
        req,
      );
      return { status: 201, body: toPublicAnnotationConfig(res) };
    },

    async get_annotation_config(req) {
      const res = await catalog.call(S.getAnnotationConfig, { id: configId(req) }, req);
      return { status: 200, body: toPublicAnnotationConfig(res) };
    },

    async update_annotation_config(req) {
      const b = req.body;
      const s = scoring(b);
      const res = await catalog.call(
        S.updateAnnotationConfig,
        {
          id: configId(req),
          type: b.annotation_config_type,
          ...(b.name === undefined ? {} : { name: b.name }),
          ...(s.minimumScore === undefined ? {} : { minimumScore: s.minimumScore }),
          ...(s.maximumScore === undefined ? {} : { maximumScore: s.maximumScore }),
          setValues: s.values !== undefined,
          values: s.values ?? [],
          ...(s.optimizationDirection === undefined
            ? {}
            : { optimizationDirection: s.optimizationDirection }),
        },
        req,
      );
      return { status: 200, body: toPublicAnnotationConfig(res) };
    },

    delete_annotation_config: (req) =>
      noContent(catalog.call(S.deleteAnnotationConfig, { id: configId(req) }, req)),
  };
}
