import type { Pool, PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import type { CategoricalValue } from "@argus/contracts";
import type { AnnotationConfig } from "@argus/proto/catalog/v1/annotations";
import { rowById, type SpaceRow } from "@argus/spaces";

export interface AnnotationConfigRow extends SpaceRow {
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

export const findAnnotationConfig = (pool: Pool, id: string) =>
  rowById<AnnotationConfigRow>(pool, "annotation_configs", ANNOTATION_CONFIG_COLUMNS, id);

/** The configs with these ids (a queue's, several queues'), in no particular order. */
export async function annotationConfigsById(
  db: Pool | PoolClient,
  ids: readonly string[],
): Promise<AnnotationConfigRow[]> {
  if (ids.length === 0) return [];
  const res = await tracedQuery<AnnotationConfigRow>(
    db,
    "annotation configs by id",
    `select ${ANNOTATION_CONFIG_COLUMNS} from annotation_configs where id = any($1::uuid[])`,
    [[...new Set(ids)]],
  );
  return res.rows;
}
