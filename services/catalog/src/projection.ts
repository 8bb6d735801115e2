import { projector } from "@argus/eventstore";
import type { CatalogEvent } from "@argus/contracts";
import { aiIntegrationProjections } from "./aiIntegrations/aiIntegrationProjection.ts";
import { annotationConfigProjections } from "./annotationConfigs/annotationConfigProjection.ts";
import { annotationQueueProjections } from "./annotationQueues/annotationQueueProjection.ts";
import { evaluatorProjections } from "./evaluators/evaluatorProjection.ts";
import { integrationProjections } from "./integrations/integrationProjection.ts";
import { projectProjections } from "./projects/projectProjection.ts";
import { promptProjections } from "./prompts/promptProjection.ts";
import { tagProjections } from "./tags/tagProjection.ts";

/**
 * The catalog's inline projections, written in the transaction of their events: each resource
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
