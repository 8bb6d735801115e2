import type { Pool } from "pg";
import type { ExperimentRuns } from "../peers/experimentRuns.ts";
import { ItemError } from "./managedEvaluators.ts";
import { ask, judge, renderAs, type VariableFormat } from "./llm.ts";
import type { Chat, ChatMessage } from "./providerHttp.ts";
import {
  doneItems,
  workPage,
  writePending,
  type Outcome,
  type PageJob,
  type Progress,
  type RunToWork,
} from "./runItems.ts";

const PAGE = 200;
/** A generation is no evaluator: its items are recorded under the nil uuid. */
const GENERATION = "00000000-0000-0000-0000-000000000000";

/** An LLM_GENERATION run configuration, as the task stores it (ids internal). */
export interface GenerationConfig {
  experiment_type?: string;
  ai_integration_id?: string;
  model_name?: string;
  messages?: { role?: string; content?: string | null }[];
  input_variable_format?: string;
  invocation_parameters?: Record<string, unknown>;
}

/** An AGENT_CALL run configuration, as the task stores it (ids internal). */
export interface AgentCallConfig {
  experiment_type?: string;
  integration_id?: string;
  input_template?: Record<string, unknown>;
}

/** What a RUN_EXPERIMENT run was triggered with (taskRuns/taskRunCommands.ts). */
export interface ExperimentOptions {
  experiment_id: string;
  experiment_name: string;
  dataset_version_id: string | null;
  example_ids: string[];
  max_examples: number | null;
  /** Only the examples matching it (the examples search's filter language). */
  query_filter: string | null;
}

const ROLES: Record<string, ChatMessage["role"]> = {
  SYSTEM: "system",
  USER: "user",
  ASSISTANT: "assistant",
};

/** The messages with one example's fields filled in; a role the API cannot send is the run's. */
export function messagesFor(
  config: GenerationConfig,
  fields: Record<string, unknown>,
): ChatMessage[] {
  const format = (config.input_variable_format ?? "F_STRING") as VariableFormat;
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields))
    if (v !== null && v !== undefined) values[k] = typeof v === "string" ? v : JSON.stringify(v);
  return (config.messages ?? []).map((m, i) => {
    const role = ROLES[String(m.role ?? "").toUpperCase()];
    if (!role) throw new Error(`run_configuration.messages[${i}].role ${m.role} is not executed`);
    return { role, content: renderAs(format, m.content ?? "", values) };
  });
}

/** What makes one experiment run's output from its example's fields. */
export type Produce = (fields: Record<string, unknown>) => Promise<string>;

/** LLM_GENERATION: the example's messages rendered and sent to the model; its answer. */
export function generation(config: GenerationConfig, chat: Chat): Produce | string {
  const model = config.model_name;
  if (!model) return "run_configuration.model_name is missing";
  const parameters = config.invocation_parameters ?? {};
  return async (fields) => ask(chat, { model, messages: messagesFor(config, fields), parameters });
}

/** A TEMPLATE_EVALUATION run configuration, as the task stores it (ids internal). */
export interface JudgementConfig {
  experiment_type?: string;
  ai_integration_id?: string;
  model_name?: string;
  template?: string;
  provide_explanation?: boolean;
  classification_choices?: Record<string, number>;
  column_mapping?: Record<string, string>;
}

/** A column of an example's fields: its name, or a dotted path into a field's object. */
function fieldAt(fields: Record<string, unknown>, path: string): unknown {
  if (path in fields) return fields[path];
  return path
    .split(".")
    .reduce<unknown>(
      (v, part) =>
        v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined,
      fields,
    );
}

/**
 * TEMPLATE_EVALUATION: the template's `{{variable}}`s filled from the example (through
 * `column_mapping`), judged by the model as a TEMPLATE evaluator's prompt is; the label is the
 * run's output, and with `provide_explanation` the explanation follows it on the next line.
 */
export function judgement(config: JudgementConfig, chat: Chat): Produce | string {
  if (!config.model_name) return "run_configuration.model_name is missing";
  if (!config.template) return "run_configuration.template is missing";
  const template = {
    template: config.template,
    include_explanations: config.provide_explanation === true,
    classification_choices: config.classification_choices ?? null,
    llm_config: { model_name: config.model_name },
  };
  const mapping = config.column_mapping ?? {};
  return async (fields) => {
    const values: Record<string, string> = {};
    for (const [, name] of template.template.matchAll(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g)) {
      const v = fieldAt(fields, mapping[name!] ?? name!);
      if (v === undefined || v === null) throw new ItemError(`missing ${name}`);
      values[name!] = typeof v === "string" ? v : JSON.stringify(v);
    }
    const verdict = await judge(chat, template, renderAs("MUSTACHE", template.template, values));
    return template.include_explanations && verdict.explanation
      ? `${verdict.label}\n${verdict.explanation}`
      : verdict.label;
  };
}

/**
 * A RUN_EXPERIMENT run's outputs (LLM_GENERATION, AGENT_CALL, TEMPLATE_EVALUATION): the dataset version's examples
 * page by page (only `example_ids`, only those matching `query_filter`, at most
 * `max_examples`), each example's output made by `produce`. Like an evaluation run: each
 * example once (a resumed run skips those recorded), outputs kept before they are written and
 * written once (the dataset service adds a run only for an example without one), progress
 * after each page; an example that fails is that item's error.
 */
export async function generateExperiment(
  pool: Pool,
  runs: ExperimentRuns,
  run: RunToWork,
  target: { datasetId: string; experimentId: string; taskId: string },
  produce: Produce,
  progress: Progress,
): Promise<Outcome> {
  const options = run.options as unknown as ExperimentOptions;
  const write = (experimentId: string, outputs: { item_id: string; output: string }[]) =>
    runs.recordOutputs({
      accountId: run.account_id,
      experimentId,
      taskId: target.taskId,
      runs: outputs.map((o) => ({ exampleId: o.item_id, output: o.output })),
    });
  if (progress.resumed) await writePending<{ output: string }>(pool, run.id, write);
  let after = "";
  let taken = 0;
  const most = options.max_examples ?? Number.POSITIVE_INFINITY;
  do {
    const page = await runs.examples({
      accountId: run.account_id,
      datasetId: target.datasetId,
      datasetVersionId: options.dataset_version_id ?? "",
      exampleIds: options.example_ids,
      filter: options.query_filter ?? "",
      page: { after, limit: PAGE },
    });
    const chosen = page.examples.slice(0, Math.max(0, most - taken));
    taken += chosen.length;
    const seen = progress.resumed
      ? await doneItems(
          pool,
          run.id,
          chosen.map((e) => e.id),
        )
      : new Set<string>();
    const jobs: PageJob<{ output: string }>[] = chosen
      .filter((e) => !seen.has(`${e.id}/${GENERATION}`))
      .map((example) => ({
        item_id: example.id,
        evaluator_id: GENERATION,
        target: target.experimentId,
        run: async () => ({
          output: await produce(JSON.parse(example.fieldsJson) as Record<string, unknown>),
        }),
      }));
    if (!(await workPage(pool, run.id, [], jobs, write, progress))) return { status: "STOPPED" };
    after = taken >= most ? "" : (page.page?.nextAfter ?? "");
  } while (after !== "");
  return { status: "COMPLETED" };
}
