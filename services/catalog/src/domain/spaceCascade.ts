import type { AiIntegrationConfig, KeyFacts } from "./aiIntegration.ts";

/** What a deleted space still holds in the catalog, as the cascade found it. */
export interface SpaceHoldings {
  spaceId: string;
  tags: readonly string[];
  projects: readonly string[];
  prompts: readonly string[];
  evaluators: readonly string[];
  annotationConfigs: readonly string[];
  annotationQueues: readonly string[];
  /** Integrations with at least one scoping naming the space. */
  aiIntegrations: readonly { id: string; config: AiIntegrationConfig; key: KeyFacts }[];
}

export interface CascadeAppend {
  streamId: string;
  events: readonly { type: string; data: Record<string, unknown> }[];
}

/**
 * Pure: the Deleted events that remove everything a deleted space holds, one stream each.
 * Each resource ends with its own Deleted event (the one its delete command appends), so its
 * projection and every consumer treat it as deleted — no cascade-only event types. Queues go
 * before the annotation configs they use. An AI integration loses only its scopings of the
 * space; one left with none is deleted, because no scoping means account-wide and the
 * cascade must never widen access.
 */
export function decideSpaceCascade(h: SpaceHoldings, now: Date): CascadeAppend[] {
  const at = now.toISOString();
  const deleted =
    (aggregate: string, type: string) =>
    (id: string): CascadeAppend => ({
      streamId: `${aggregate}-${id}`,
      events: [{ type, data: { id, space_id: h.spaceId, deleted_at: at } }],
    });
  const integrations = h.aiIntegrations.map(({ id, config, key }): CascadeAppend => {
    const scopings = config.scopings.filter((s) => s.space_id !== h.spaceId);
    return {
      streamId: `ai_integration-${id}`,
      events: [
        scopings.length === 0
          ? { type: "AiIntegrationDeleted", data: { id, deleted_at: at } }
          : {
              type: "AiIntegrationUpdated",
              data: { id, ...config, scopings, ...key, updated_at: at },
            },
      ],
    };
  });
  return [
    ...h.annotationQueues.map(deleted("annotation_queue", "AnnotationQueueDeleted")),
    ...h.annotationConfigs.map(deleted("annotation_config", "AnnotationConfigDeleted")),
    ...h.evaluators.map(deleted("evaluator", "EvaluatorDeleted")),
    ...h.prompts.map(deleted("prompt", "PromptDeleted")),
    ...h.projects.map(deleted("project", "ProjectDeleted")),
    ...h.tags.map(deleted("tag", "TagDeleted")),
    ...integrations,
  ];
}
