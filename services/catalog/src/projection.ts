import { projector } from "@argus/eventstore";
import type { CatalogEvent } from "@argus/contracts";
import { aiIntegrationProjections } from "./aiIntegrationProjection.ts";
import { annotationConfigProjections } from "./annotationConfigProjection.ts";
import { annotationQueueProjections } from "./annotationQueueProjection.ts";
import { evaluatorProjections } from "./evaluatorProjection.ts";
import { integrationProjections } from "./integrationProjection.ts";
import { projectProjections } from "./projectProjection.ts";
import { promptProjections } from "./promptProjection.ts";
import { tagProjections } from "./tagProjection.ts";

/**
 * The catalog's inline projections, written in the transaction of their events: each area
 * brings the projections of its own events, and the compiler checks none is missing.
 */
export const project = projector<CatalogEvent>("catalog", {
  ...tagProjections,
  ...projectProjections,
  ...promptProjections,
  ...evaluatorProjections,
  ...annotationConfigProjections,
  ...annotationQueueProjections,
  ...aiIntegrationProjections,
  ...integrationProjections,
});
