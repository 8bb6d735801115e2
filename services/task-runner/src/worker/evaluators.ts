import type { TaskEvaluatorSettings } from "@argus/contracts";
import { decodeId, encodeId, isUuidAnyCase, type OutboundPolicy } from "@argus/platform";
import type { Endpoints, Integrations } from "../peers/catalogIntegrations.ts";
import {
  customConfigOf,
  evaluateManaged,
  managedConfigOf,
  type Verdict,
} from "./managedEvaluators.ts";
import { judge, providerChat, render, templateVariables, type TemplateConfig } from "./llm.ts";
import { integrationNamed, type Chat } from "./providerHttp.ts";
import type { AwsOptions } from "./bedrock.ts";
import type { GcpOptions } from "./vertex.ts";
import { endpointOf, evaluateRemote, schemaVariables } from "./endpoints.ts";
import { customSandbox, type Sandbox, type SandboxOptions } from "./sandbox.ts";

/** A trace/session evaluator's variable: the attribute of the spans its named filters match. */
export interface QueryMapping {
  variable_name: string;
  /** Ids of the task's `query_filters`; empty: any of them. */
  query_ids: string[];
  attribute_path: string;
}

/** What an item of an evaluator is: a span, a whole trace, or a whole session. */
export type Granularity = "SPAN" | "TRACE" | "SESSION";

/** One evaluator of a run, ready to evaluate an item's values. */
export interface ItemEvaluator {
  evaluatorId: string;
  /** The eval column it writes (`eval.<name>.*`). */
  name: string;
  /** The variables it reads, resolved from each item through the column or query mappings. */
  variables: string[];
  /** Variables it reads when the item has them (a REMOTE schema's optional fields). */
  optionalVariables?: string[];
  columnMappings: Record<string, string> | null;
  granularity: Granularity;
  /** TRACE and SESSION evaluators' mappings (null for span evaluators). */
  queryMappings: QueryMapping[] | null;
  evaluate(values: Record<string, string>): Promise<Verdict>;
}

/** An evaluator as the run fixed it at trigger time. */
export interface RunEvaluator {
  evaluator_id: string;
  /** The evaluator's name when attached: a REMOTE evaluator's eval column. */
  evaluator_name?: string;
  version_id?: string;
  type: string;
  config: Record<string, unknown>;
  column_mappings: Record<string, string> | null;
  /** Trace/session shape. */
  query_mappings?: unknown[] | null;
  query_filter?: string | null;
}

/** An evaluator as a run's failure reason names it: by name, else by its public id. */
const evaluatorNamed = (e: Pick<RunEvaluator, "evaluator_id" | "evaluator_name">): string =>
  `evaluator ${e.evaluator_name ?? encodeId("Evaluator", e.evaluator_id)}`;

/**
 * The one shape a run keeps of an evaluator: the task's attachment (mappings, filter) with the
 * version resolved for this run, whether a caller's trigger or the scheduler resolved it.
 */
export const runEvaluatorOf = (
  attached: TaskEvaluatorSettings,
  version: { versionId: string; type: string; config: Record<string, unknown> },
): RunEvaluator => ({
  evaluator_id: attached.evaluator_id,
  evaluator_name: attached.evaluator_name,
  version_id: version.versionId,
  type: version.type,
  config: version.config,
  column_mappings: attached.column_mappings,
  query_mappings: attached.query_mappings,
  query_filter: attached.query_filter,
});

export interface EvaluatorDeps {
  integrations: Integrations;
  /** AGENT and EVALUATOR endpoints (REMOTE evaluators, AGENT_CALL experiments). */
  endpoints: Endpoints;
  policy: OutboundPolicy;
  /** Calls to one AI integration at once, per replica. */
  perIntegration: number;
  providerTimeoutMs: number;
  /** AWS Bedrock's region and STS, Vertex AI's endpoint (both as the deployment's identity). */
  clouds: { aws: AwsOptions; gcp: GcpOptions };
  /** Where and under which limits CUSTOM code runs. */
  sandbox: SandboxOptions;
}

/** A run's evaluators: those that run, why the others do not, and their processes' end. */
export interface RunEvaluators {
  runnable: ItemEvaluator[];
  reasons: string[];
  close(): void;
}

/**
 * An attachment's granularity: a span evaluator's items are spans; one attached with
 * `query_mappings` runs on the TRACE or SESSION its version's `data_granularity` names (the
 * public API: the granularity must match the shape), else why it cannot run.
 */
function shapeOf(
  e: RunEvaluator,
): { granularity: Granularity; queryMappings: QueryMapping[] | null } | string {
  if (!e.query_mappings) return { granularity: "SPAN", queryMappings: null };
  const granularity = e.config.data_granularity;
  if (granularity !== "TRACE" && granularity !== "SESSION")
    return `attached with query_mappings, its data_granularity must be TRACE or SESSION (not ${String(granularity ?? "SPAN")})`;
  return { granularity, queryMappings: e.query_mappings as QueryMapping[] };
}

/**
 * What a run uses that the catalog may delete while it runs, by id, with how a reason names
 * it: each evaluator and the integration its version calls (a TEMPLATE's AI integration, a
 * REMOTE's endpoint), and a RUN_EXPERIMENT run's integration (`experiment`, internal ids).
 */
export function runSources(
  evaluators: readonly RunEvaluator[],
  experiment: { ai_integration_id?: string; integration_id?: string } | null,
): Map<string, string> {
  const sources = new Map<string, string>();
  const add = (id: string, what: string) => {
    if (isUuidAnyCase(id)) sources.set(id, what);
  };
  const integration = (type: string, id: unknown) => {
    const publicId = String(id ?? "");
    add(
      decodeId(type, publicId) ?? publicId,
      `${type === "Integration" ? "integration" : "AI integration"} ${publicId}`,
    );
  };
  for (const e of evaluators) {
    add(e.evaluator_id, evaluatorNamed(e));
    if (e.type === "REMOTE") integration("Integration", e.config.integration_id);
    if (e.type === "TEMPLATE")
      integration(
        "AiIntegration",
        (e.config as unknown as TemplateConfig).llm_config?.ai_integration_id,
      );
  }
  if (experiment?.ai_integration_id)
    add(experiment.ai_integration_id, integrationNamed({ id: experiment.ai_integration_id }));
  if (experiment?.integration_id)
    add(
      experiment.integration_id,
      `integration ${encodeId("Integration", experiment.integration_id)}`,
    );
  return sources;
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
 * The run's evaluators that can run, or why each cannot: MANAGED code in process, CUSTOM code
 * in sandboxed Python processes (closed with the run), TEMPLATE through its AI integration's
 * provider (one client per integration, calls limited per integration): OpenAI-compatible,
 * Azure OpenAI and Anthropic. Their calls out stop when `stopped` (the run's) aborts.
 */
export async function itemEvaluators(
  d: EvaluatorDeps,
  limit: ReturnType<typeof keyedLimiter>,
  run: { id: string; task_id: string; account_id: string },
  evaluators: readonly RunEvaluator[],
  stopped: AbortSignal,
): Promise<RunEvaluators> {
  const accountId = run.account_id;
  const runnable: ItemEvaluator[] = [];
  const reasons: string[] = [];
  const clients = new Map<string, Chat>();
  const sandboxes: Sandbox[] = [];
  for (const e of evaluators) {
    const shape = shapeOf(e);
    if (typeof shape === "string") {
      reasons.push(`${evaluatorNamed(e)}: ${shape}`);
      continue;
    }
    if (e.type === "CODE" && e.config.type === "CUSTOM") {
      const custom = customConfigOf(e.config);
      const sandbox = customSandbox(d.sandbox, custom);
      sandboxes.push(sandbox);
      runnable.push({
        evaluatorId: e.evaluator_id,
        name: custom.name,
        variables: custom.variables,
        columnMappings: e.column_mappings,
        ...shape,
        evaluate: (values) => sandbox.evaluate(values),
      });
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
        ...shape,
        evaluate: async (values) =>
          evaluateManaged(
            managed,
            managed.variables.map((v) => values[v]!),
          ),
      });
      continue;
    }
    if (e.type === "REMOTE") {
      const publicId = String(e.config.integration_id ?? "");
      const id = decodeId("Integration", publicId) ?? publicId;
      let endpoint;
      try {
        endpoint = endpointOf(await d.endpoints(accountId, id));
      } catch (err) {
        reasons.push(`${evaluatorNamed(e)}: ${(err as Error).message}`);
        continue;
      }
      const target = endpoint;
      const { required, optional } = schemaVariables(target);
      const name = e.evaluator_name ?? "remote";
      // Public ids, as the API shows them: the endpoint can look them up.
      const metadata = {
        task_id: encodeId("Task", run.task_id),
        task_run_id: encodeId("TaskRun", run.id),
        evaluator_id: encodeId("Evaluator", e.evaluator_id),
        evaluator_name: name,
      };
      const options = { policy: d.policy, timeoutMs: d.providerTimeoutMs, stopped };
      runnable.push({
        evaluatorId: e.evaluator_id,
        name,
        variables: required,
        optionalVariables: optional,
        columnMappings: e.column_mappings,
        ...shape,
        evaluate: (values) =>
          limit(target.id, () => evaluateRemote(target, values, metadata, options)),
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
        client = providerChat(integration, d.policy, d.providerTimeoutMs, d.clouds, stopped);
        clients.set(integrationId, client);
      } catch (err) {
        reasons.push(`${evaluatorNamed(e)}: ${(err as Error).message}`);
        continue;
      }
    }
    const provider = client;
    runnable.push({
      evaluatorId: e.evaluator_id,
      name: config.name || "evaluation",
      variables: templateVariables(config.template ?? ""),
      columnMappings: e.column_mappings,
      ...shape,
      evaluate: (values) =>
        limit(integrationId, () => judge(provider, config, render(config.template, values))),
    });
  }
  return { runnable, reasons, close: () => sandboxes.forEach((s) => s.close()) };
}
