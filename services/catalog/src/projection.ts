import type { PoolClient } from "pg";
import { projectProjections } from "./projectProjection.ts";
import { aiIntegrationProjections } from "./aiIntegrationsProjection.ts";
import { annotationConfigProjections } from "./annotationConfigsProjection.ts";
import { annotationQueueProjections } from "./annotationQueuesProjection.ts";
import { evaluatorProjections } from "./evaluatorsProjection.ts";
import { promptProjections } from "./promptsProjection.ts";
import { tagProjections } from "./tagProjection.ts";

export interface ProjectedEvent {
  type: string;
  data: Record<string, unknown>;
}

export type Projection = (client: PoolClient, data: Record<string, unknown>) => Promise<unknown>;

// Each area of the catalog contributes the projections of its own events here.
const projections: Record<string, Projection> = {
  ...tagProjections,
  ...projectProjections,
  ...promptProjections,
  ...evaluatorProjections,
  ...annotationConfigProjections,
  ...annotationQueueProjections,
  ...aiIntegrationProjections,
};

/** The catalog's inline projections, written in the same transaction as the events. */
export async function project(
  client: PoolClient,
  events: readonly { type: string; data: object }[],
): Promise<void> {
  for (const { type, data } of events as readonly ProjectedEvent[]) {
    const apply = projections[type];
    if (!apply) throw new Error(`catalog projection does not know event ${type}`);
    await apply(client, data);
  }
}
