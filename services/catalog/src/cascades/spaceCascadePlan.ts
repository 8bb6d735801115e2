import type { Aggregate } from "@argus/contracts";

/** What a deleted space still holds in the catalog, as the cascade found it. */
export interface SpaceHoldings {
  tags: readonly string[];
  projects: readonly string[];
  prompts: readonly string[];
  evaluators: readonly string[];
  annotationConfigs: readonly string[];
  annotationQueues: readonly string[];
  /** Integrations with at least one scoping naming the space. */
  aiIntegrations: readonly string[];
  /** AGENT and EVALUATOR integrations likewise. */
  integrations: readonly string[];
}

/** One command of the cascade: the aggregate's Delete (an integration: RemoveSpaceScopings). */
export interface CascadeStep {
  aggregate: Exclude<Aggregate<"catalog">, "resource_tags">;
  id: string;
}

/**
 * Pure: the order in which a deleted space's resources are deleted, each by its own decider on
 * its own stream (so its projection and every consumer treat it as deleted, with no
 * cascade-only event types). Queues go before the annotation configs they use; tags go last,
 * after the resources they were attached to.
 */
export function spaceCascadePlan(h: SpaceHoldings): CascadeStep[] {
  const steps = (aggregate: CascadeStep["aggregate"], ids: readonly string[]) =>
    ids.map((id) => ({ aggregate, id }));
  return [
    ...steps("annotation_queue", h.annotationQueues),
    ...steps("annotation_config", h.annotationConfigs),
    ...steps("evaluator", h.evaluators),
    ...steps("prompt", h.prompts),
    ...steps("project", h.projects),
    ...steps("tag", h.tags),
    ...steps("ai_integration", h.aiIntegrations),
    ...steps("integration", h.integrations),
  ];
}
