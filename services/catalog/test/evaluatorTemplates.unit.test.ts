import { describe, expect, it } from "vitest";
import { checkedConfig } from "../src/domain/evaluatorConfig.ts";
import { EVALUATOR_TEMPLATES } from "../src/domain/evaluatorTemplates.ts";

describe("the built-in evaluator templates", () => {
  it("have unique column names, rails equal to their choices' labels, and a consistent direction", () => {
    const names = EVALUATOR_TEMPLATES.map((t) => t.column_name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of EVALUATOR_TEMPLATES) {
      expect(t.column_name).toMatch(/^[a-z0-9_]+$/);
      expect(Object.keys(t.classification_choices)).toEqual(t.rails);
      expect(t.template).toMatch(/\{[a-z_]+\}/);
      for (const rail of t.rails) expect(t.template).toContain(`"${rail}"`);
      // The first rail is the one the direction favours or disfavours: scored 1.
      const scores = Object.values(t.classification_choices);
      expect(scores[0]).toBe(Math.max(...scores));
    }
  });

  it("map onto a template config POST /v2/evaluators accepts", () => {
    for (const t of EVALUATOR_TEMPLATES) {
      const config = {
        name: t.column_name,
        template: t.template,
        include_explanations: true,
        use_function_calling_if_available: true,
        classification_choices: t.classification_choices,
        direction: t.direction,
        data_granularity: t.data_granularity ?? "SPAN",
        llm_config: {
          ai_integration_id: "x",
          model_name: "gpt-4o",
          invocation_parameters: {},
          provider_parameters: {},
        },
      };
      expect(() =>
        checkedConfig("TEMPLATE", { commit_message: "c", config_kind: "TEMPLATE", config }),
      ).not.toThrow();
    }
  });
});
