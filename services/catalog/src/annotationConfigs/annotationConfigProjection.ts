import { tracedQuery, type Projections } from "@argus/eventstore";
import type { AnnotationConfigEvent } from "@argus/contracts";
import { registerResource, unregisterResource } from "../shared/resourceRegistry.ts";

/** Annotation configs as their events leave them; they register for tagging. */
export const annotationConfigProjections: Projections<AnnotationConfigEvent> = {
  async AnnotationConfigCreated(client, d) {
    await tracedQuery(
      client,
      "project AnnotationConfigCreated",
      `insert into annotation_configs (id, account_id, space_id, name, type, minimum_score, maximum_score,
           "values", optimization_direction, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [
        d.id,
        d.account_id,
        d.space_id,
        d.name,
        d.config_type,
        d.minimum_score,
        d.maximum_score,
        JSON.stringify(d.values),
        d.optimization_direction,
        d.created_at,
      ],
    );
    await registerResource(client, "annotation_config", d);
  },
  AnnotationConfigUpdated: (client, d) =>
    tracedQuery(
      client,
      "project AnnotationConfigUpdated",
      `update annotation_configs set name = $2, minimum_score = $3, maximum_score = $4, "values" = $5,
           optimization_direction = $6, updated_at = $7
         where id = $1`,
      [
        d.id,
        d.name,
        d.minimum_score,
        d.maximum_score,
        JSON.stringify(d.values),
        d.optimization_direction,
        d.updated_at,
      ],
    ),
  async AnnotationConfigDeleted(client, d) {
    await tracedQuery(
      client,
      "project AnnotationConfigDeleted",
      "delete from annotation_configs where id = $1",
      [d.id],
    );
    await unregisterResource(client, "annotation_config", d.id);
  },
};
