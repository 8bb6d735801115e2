import { encodeId } from "@argus/platform";
import {
  AnnotationConfigServiceService,
  type AnnotationConfig,
} from "@argus/proto/catalog/v1/annotations";
import type { Backend } from "../backend.ts";
import { pathId, spaceListQuery } from "./params.ts";
import type { ApiRequest, Handler } from "../http/handler.ts";

interface ConfigBody {
  annotation_config_type: string;
  name?: string;
  space_id?: string;
  minimum_score?: number;
  maximum_score?: number;
  values?: { label: string; score?: number }[];
  optimization_direction?: string;
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

const configId = (req: ApiRequest): string => {
  const id = pathId("AnnotationConfig", req.params.annotation_config_id, "annotation config");
  return id;
};

export function annotationConfigHandlers(catalog: Backend): Record<string, Handler> {
  const S = AnnotationConfigServiceService;
  return {
    async list_annotation_configs(req) {
      const query = spaceListQuery(req);
      if (query === null) return { status: 200, body: { annotation_configs: [] }, nextAfter: "" };
      const res = await catalog.call(S.listAnnotationConfigs, query, req);
      return {
        status: 200,
        body: { annotation_configs: res.annotationConfigs.map(toPublicAnnotationConfig) },
        nextAfter: res.page?.nextAfter ?? "",
      };
    },

    async create_annotation_config(req) {
      const b = req.body as ConfigBody;
      const spaceId = pathId("Space", b.space_id, "space");
      const res = await catalog.call(
        S.createAnnotationConfig,
        {
          spaceId,
          name: b.name ?? "",
          type: b.annotation_config_type,
          ...(b.minimum_score === undefined ? {} : { minimumScore: b.minimum_score }),
          ...(b.maximum_score === undefined ? {} : { maximumScore: b.maximum_score }),
          values: b.values ?? [],
          optimizationDirection: b.optimization_direction ?? "",
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
      const b = req.body as ConfigBody;
      const res = await catalog.call(
        S.updateAnnotationConfig,
        {
          id: configId(req),
          type: b.annotation_config_type,
          ...(b.name === undefined ? {} : { name: b.name }),
          ...(b.minimum_score === undefined ? {} : { minimumScore: b.minimum_score }),
          ...(b.maximum_score === undefined ? {} : { maximumScore: b.maximum_score }),
          setValues: b.values !== undefined,
          values: b.values ?? [],
          ...(b.optimization_direction === undefined
            ? {}
            : { optimizationDirection: b.optimization_direction }),
        },
        req,
      );
      return { status: 200, body: toPublicAnnotationConfig(res) };
    },

    async delete_annotation_config(req) {
      await catalog.call(S.deleteAnnotationConfig, { id: configId(req) }, req);
      return { status: 204 };
    },
  };
}
