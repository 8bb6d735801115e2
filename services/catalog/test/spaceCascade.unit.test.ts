import { describe, expect, it } from "vitest";
import { spaceCascadePlan, type SpaceHoldings } from "../src/cascades/spaceCascadePlan.ts";

const none: SpaceHoldings = {
  tags: [],
  projects: [],
  prompts: [],
  evaluators: [],
  annotationConfigs: [],
  annotationQueues: [],
  aiIntegrations: [],
  integrations: [],
};

describe("spaceCascadePlan", () => {
  it("given an empty space, runs nothing", () => {
    expect(spaceCascadePlan(none)).toEqual([]);
  });

  it("deletes each resource by its own aggregate, queues before their configs, tags last", () => {
    const plan = spaceCascadePlan({
      tags: ["t"],
      projects: ["p"],
      prompts: ["pr"],
      evaluators: ["e"],
      annotationConfigs: ["c"],
      annotationQueues: ["q1", "q2"],
      aiIntegrations: ["ai"],
      integrations: ["agent"],
    });
    expect(plan.map((s) => `${s.aggregate} ${s.id}`)).toEqual([
      "annotation_queue q1",
      "annotation_queue q2",
      "annotation_config c",
      "evaluator e",
      "prompt pr",
      "project p",
      "tag t",
      "ai_integration ai",
      "integration agent",
    ]);
  });
});
