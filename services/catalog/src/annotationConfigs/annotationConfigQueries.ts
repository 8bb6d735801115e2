import type { CallContext } from "@argus/platform";
import type {
  AnnotationConfig,
  GetAnnotationConfigRequest,
  ListAnnotationConfigsRequest,
  ListAnnotationConfigsResponse,
} from "@argus/proto/catalog/v1/annotations";
import { ACCESS } from "../shared/access.ts";
import {
  ANNOTATION_CONFIG_COLUMNS,
  findAnnotationConfig,
  toAnnotationConfig,
  type AnnotationConfigRow,
} from "./annotationConfigRows.ts";
import { authorized } from "@argus/spaces";
import type { CatalogDeps } from "../deps.ts";
import { listInSpaces } from "../shared/listInSpaces.ts";

export function annotationConfigQueries(deps: CatalogDeps) {
  const { pool } = deps;
  return {
    async listAnnotationConfigs(
      req: ListAnnotationConfigsRequest,
      ctx: CallContext,
    ): Promise<ListAnnotationConfigsResponse> {
      const list = {
        table: "annotation_configs",
        columns: ANNOTATION_CONFIG_COLUMNS,
        read: "ANNOTATION_CONFIG_READ",
        order: "id",
      } as const;
      const { items, nextAfter } = await listInSpaces<AnnotationConfigRow>(deps, ctx, req, list);
      return { annotationConfigs: items.map(toAnnotationConfig), page: { nextAfter } };
    },

    async getAnnotationConfig(
      req: GetAnnotationConfigRequest,
      ctx: CallContext,
    ): Promise<AnnotationConfig> {
      const row = await findAnnotationConfig(pool, req.id);
      return toAnnotationConfig(await authorized(deps.spaces, ctx, row, ACCESS.annotationConfig));
    },
  };
}
