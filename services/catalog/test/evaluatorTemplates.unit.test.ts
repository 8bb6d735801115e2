import { describe, expect, it } from "vitest";
import { checkedConfig } from "../src/evaluators/evaluatorConfigRules.ts";
import { EVALUATOR_TEMPLATES } from "../src/evaluators/evaluatorTemplates.ts";

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

  it("are the 28 of the public catalog, at its granularities and about its size as served", () => {
    expect(EVALUATOR_TEMPLATES).toHaveLength(28);
    const granularities = EVALUATOR_TEMPLATES.map((t) => t.data_granularity);
    for (const g of granularities) expect([null, "TRACE", "SESSION"]).toContain(g);
    expect(granularities.filter((g) => g === null).length).toBeGreaterThan(20);
    expect(granularities).toContain("TRACE");
    // Session evals come last, and are all session-wide, reading the whole conversation.
    const firstSession = granularities.indexOf("SESSION");
    expect(firstSession).toBeGreaterThan(0);
    for (const t of EVALUATOR_TEMPLATES.slice(firstSession)) {
      expect(t.data_granularity).toBe("SESSION");
      expect(t.template).toContain("{conversation}");
    }
    // The body of GET /v2/evaluator-templates: the catalog's fields are the public ones.
    const body = { evaluator_templates: EVALUATOR_TEMPLATES };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(bytes).toBeGreaterThan(24 * 1024);
    expect(bytes).toBeLessThan(40 * 1024);
  });
});
