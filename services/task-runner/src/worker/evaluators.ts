import { decodeId, type OutboundPolicy } from "@argus/platform";
import type OpenAI from "openai";
import type { Integrations } from "../adapters/integrations.ts";
import { evaluateManaged, managedConfigOf, type Verdict } from "../domain/managed.ts";
import { judge, providerClient, render, templateVariables, type TemplateConfig } from "./llm.ts";

/** One evaluator of a run, ready to evaluate an item's values. */
export interface ItemEvaluator {
  evaluatorId: string;
  /** The eval column it writes (`eval.<name>.*`). */
  name: string;
  /** The variables it reads, resolved from each item through the column mappings. */
  variables: string[];
  columnMappings: Record<string, string> | null;
  evaluate(values: Record<string, string>): Promise<Verdict>;
}

/** An evaluator as the run fixed it at trigger time. */
export interface RunEvaluator {
  evaluator_id: string;
  type: string;
  config: Record<string, unknown>;
  column_mappings: Record<string, string> | null;
  /** Trace/session shape (not run yet). */
  query_mappings?: unknown[] | null;
}

export interface EvaluatorDeps {
  integrations: Integrations;
  policy: OutboundPolicy;
  /** Calls to one AI integration at once, per replica. */
  perIntegration: number;
  providerTimeoutMs: number;
}

/** A counting semaphore per key: at most `limit` tasks of one key run at once. */
export function keyedLimiter(limit: number) {
  const running = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  return async <T>(key: string, task: () => Promise<T>): Promise<T> => {
    if ((running.get(key) ?? 0) >= limit)
      await new Promise<void>((resolve) =>
        waiting.set(key, [...(waiting.get(key) ?? []), resolve]),
      );
    running.set(key, (running.get(key) ?? 0) + 1);
    try {
      return await task();
    } finally {
      running.set(key, running.get(key)! - 1);
      const next = waiting.get(key)?.shift();
      next?.();
    }
  };
}

/**
 * The run's evaluators that can run, or why each cannot: MANAGED code in process, TEMPLATE
 * through its AI integration's provider (one client per integration, calls limited per
 * integration). CUSTOM code and providers without an OpenAI-compatible API are not run yet.
 */
export async function itemEvaluators(
  d: EvaluatorDeps,
  limit: ReturnType<typeof keyedLimiter>,
  accountId: string,
  evaluators: readonly RunEvaluator[],
): Promise<{ runnable: ItemEvaluator[]; reasons: string[] }> {
  const runnable: ItemEvaluator[] = [];
  const reasons: string[] = [];
  const clients = new Map<string, OpenAI>();
  for (const e of evaluators) {
    if (e.query_mappings) {
      reasons.push(`evaluator ${e.evaluator_id}: trace/session evaluators are not run yet`);
      continue;
    }
    if (e.type === "CODE") {
      const managed = managedConfigOf(e.config);
      if (typeof managed === "string") {
        reasons.push(managed);
        continue;
      }
      runnable.push({
        evaluatorId: e.evaluator_id,
        name: managed.name,
        variables: managed.variables,
        columnMappings: e.column_mappings,
        evaluate: async (values) =>
          evaluateManaged(
            managed,
            managed.variables.map((v) => values[v]!),
          ),
      });
      continue;
    }
    const config = e.config as unknown as TemplateConfig & { name?: string };
    const publicId = config.llm_config?.ai_integration_id ?? "";
    const integrationId = decodeId("AiIntegration", publicId) ?? publicId;
    let client = clients.get(integrationId);
    if (!client) {
      try {
        const integration = await d.integrations(accountId, integrationId);
        client = providerClient(integration, d.policy, d.providerTimeoutMs);
        clients.set(integrationId, client);
      } catch (err) {
        reasons.push(`evaluator ${e.evaluator_id}: ${(err as Error).message}`);
        continue;
      }
    }
    const provider = client;
    runnable.push({
      evaluatorId: e.evaluator_id,
      name: config.name || "evaluation",
      variables: templateVariables(config.template ?? ""),
      columnMappings: e.column_mappings,
      evaluate: (values) =>
        limit(integrationId, () => judge(provider, config, render(config.template, values))),
    });
  }
  return { runnable, reasons };
}
