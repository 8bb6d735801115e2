import { describe, expect, it } from "vitest";
import type { AiIntegrationConfig } from "../src/domain/aiIntegration.ts";
import { decideSpaceCascade, type SpaceHoldings } from "../src/domain/spaceCascade.ts";

const now = new Date("2026-03-01T10:00:00Z");
const at = now.toISOString();
const S = "space-doomed";
const none: SpaceHoldings = {
  spaceId: S,
  tags: [],
  projects: [],
  prompts: [],
  evaluators: [],
  annotationConfigs: [],
  annotationQueues: [],
  aiIntegrations: [],
};
const config = (scopings: AiIntegrationConfig["scopings"]): AiIntegrationConfig => ({
  name: "ai",
  provider: "OPEN_AI",
  base_url: null,
  model_names: [],
  headers: null,
  enable_default_models: false,
  function_calling_enabled: true,
  auth_type: "DEFAULT",
  provider_metadata: null,
  scopings,
});
const key = { has_api_key: true, api_key_hint: "…WXYZ" };

describe("decideSpaceCascade", () => {
  it("given an empty space, appends nothing", () => {
    expect(decideSpaceCascade(none, now)).toEqual([]);
  });

  it("deletes each resource on its own stream with its own Deleted event, queues before configs", () => {
    const out = decideSpaceCascade(
      {
        ...none,
        tags: ["t"],
        projects: ["p"],
        prompts: ["pr"],
        evaluators: ["e"],
        annotationConfigs: ["c"],
        annotationQueues: ["q"],
      },
      now,
    );
    const data = (id: string) => ({ id, space_id: S, deleted_at: at });
    expect(out).toEqual([
      {
        streamId: "annotation_queue-q",
        events: [{ type: "AnnotationQueueDeleted", data: data("q") }],
      },
      {
        streamId: "annotation_config-c",
        events: [{ type: "AnnotationConfigDeleted", data: data("c") }],
      },
      { streamId: "evaluator-e", events: [{ type: "EvaluatorDeleted", data: data("e") }] },
      { streamId: "prompt-pr", events: [{ type: "PromptDeleted", data: data("pr") }] },
      { streamId: "project-p", events: [{ type: "ProjectDeleted", data: data("p") }] },
      { streamId: "tag-t", events: [{ type: "TagDeleted", data: data("t") }] },
    ]);
  });

  it("removes only the space's scopings from an integration that keeps others", () => {
    const other = { organization_id: "o", space_id: "space-kept" };
    const [append] = decideSpaceCascade(
      {
        ...none,
        aiIntegrations: [
          { id: "ai", config: config([{ organization_id: "o", space_id: S }, other]), key },
        ],
      },
      now,
    );
    expect(append).toEqual({
      streamId: "ai_integration-ai",
      events: [
        {
          type: "AiIntegrationUpdated",
          data: { id: "ai", ...config([other]), ...key, updated_at: at },
        },
      ],
    });
  });

  it("deletes an integration scoped only to the space (no scoping would mean account-wide)", () => {
    const [append] = decideSpaceCascade(
      {
        ...none,
        aiIntegrations: [
          { id: "ai", config: config([{ organization_id: null, space_id: S }]), key },
        ],
      },
      now,
    );
    expect(append!.events).toEqual([
      { type: "AiIntegrationDeleted", data: { id: "ai", deleted_at: at } },
    ]);
  });
});
