import { describe, expect, it } from "vitest";
import { encodeId } from "@argus/platform";
import { runSources, type RunEvaluator } from "../src/worker/evaluators.ts";
import { retried } from "../src/worker/providerHttp.ts";

const evaluatorId = "11111111-1111-4111-8111-111111111111";
const aiIntegration = "22222222-2222-4222-8222-222222222222";
const endpoint = "33333333-3333-4333-8333-333333333333";
const agent = "44444444-4444-4444-8444-444444444444";

describe("runSources: what a run uses that the catalog may delete", () => {
  it("each evaluator, the integration its version calls, and an experiment's integration", () => {
    const evaluators: RunEvaluator[] = [
      {
        evaluator_id: evaluatorId,
        evaluator_name: "judge",
        type: "TEMPLATE",
        config: { llm_config: { ai_integration_id: encodeId("AiIntegration", aiIntegration) } },
        column_mappings: null,
      },
      {
        evaluator_id: endpoint.replace(/3/g, "5"),
        type: "REMOTE",
        config: { integration_id: encodeId("Integration", endpoint) },
        column_mappings: null,
      },
    ];
    const sources = runSources(evaluators, { integration_id: agent });
    expect(Object.fromEntries(sources)).toEqual({
      [evaluatorId]: "evaluator judge",
      [aiIntegration]: `AI integration ${encodeId("AiIntegration", aiIntegration)}`,
      [endpoint.replace(/3/g, "5")]:
        `evaluator ${encodeId("Evaluator", endpoint.replace(/3/g, "5"))}`,
      [endpoint]: `integration ${encodeId("Integration", endpoint)}`,
      [agent]: `integration ${encodeId("Integration", agent)}`,
    });
  });

  it("leaves out what names no id (a template without an integration, garbage)", () => {
    const sources = runSources(
      [
        {
          evaluator_id: evaluatorId,
          type: "TEMPLATE",
          config: { llm_config: { ai_integration_id: "not-an-id" } },
          column_mappings: null,
        },
        { evaluator_id: "nope", type: "CODE", config: {}, column_mappings: null },
      ],
      null,
    );
    expect([...sources.keys()]).toEqual([evaluatorId]);
  });
});

describe("retried once the run is stopped", () => {
  it("makes no attempt when the run was stopped before", async () => {
    let attempts = 0;
    const stopped = AbortSignal.abort();
    await expect(
      retried(
        "p",
        async () => {
          attempts++;
          return new Response("", { status: 200 });
        },
        stopped,
      ),
    ).rejects.toThrow();
    expect(attempts).toBe(0);
  });

  it("ends the wait for the next attempt at the stop, and makes no attempt after", async () => {
    let attempts = 0;
    const stop = new AbortController();
    const started = performance.now();
    const call = retried(
      "p",
      async () => {
        attempts++;
        setTimeout(() => stop.abort(), 50);
        // Retry-After 10 s: only the stop ends the wait.
        return new Response("busy", { status: 429, headers: { "retry-after-ms": "10000" } });
      },
      stop.signal,
    );
    await expect(call).rejects.toThrow();
    expect(attempts).toBe(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
