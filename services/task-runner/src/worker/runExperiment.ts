import type { Pool } from "pg";
import type { ExperimentRuns } from "../adapters/experimentRuns.ts";
import { ask, renderAs, type Chat, type ChatMessage, type VariableFormat } from "./llm.ts";
import {
  doneItems,
  workPage,
  writePending,
  type Outcome,
  type PageJob,
  type RunToWork,
} from "./runItems.ts";

const PAGE = 200;
/** A generation is no evaluator: its items are recorded under the nil uuid. */
export const GENERATION = "00000000-0000-0000-0000-000000000000";

/** An LLM_GENERATION run configuration, as the task stores it (ids internal). */
export interface GenerationConfig {
  experiment_type?: string;
  ai_integration_id?: string;
  model_name?: string;
  messages?: { role?: string; content?: string | null }[];
  input_variable_format?: string;
  invocation_parameters?: Record<string, unknown>;
}

/** What a RUN_EXPERIMENT run was triggered with (runs.ts). */
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

/**
 * A RUN_EXPERIMENT run's generation (LLM_GENERATION): the dataset version's examples page by
 * page (only `example_ids`, only those matching `query_filter`, at most `max_examples`), each example's messages rendered and sent
 * to the model, its answer the experiment run's output. Like an evaluation run: each example
 * once (a resumed run skips those recorded), outputs kept before they are written and written
 * once (the dataset service adds a run only for an example without one), progress after each
 * page; an example the model fails on is that item's error.
 */
export async function generateExperiment(
  pool: Pool,
  runs: ExperimentRuns,
  run: RunToWork,
  target: { datasetId: string; experimentId: string; taskId: string },
  config: GenerationConfig,
  chat: Chat,
  progress: () => Promise<boolean>,
): Promise<Outcome> {
  const options = run.options as unknown as ExperimentOptions;
  const model = config.model_name;
  if (!model) return { status: "FAILED", reason: "run_configuration.model_name is missing" };
  const parameters = config.invocation_parameters ?? {};
  const write = (experimentId: string, outputs: { item_id: string; output: string }[]) =>
    runs.recordOutputs({
      accountId: run.account_id,
      experimentId,
      taskId: target.taskId,
      runs: outputs.map((o) => ({ exampleId: o.item_id, output: o.output })),
    });
  await writePending<{ output: string }>(pool, run.id, write);
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
    const seen = await doneItems(
      pool,
      run.id,
      chosen.map((e) => e.id),
    );
    const jobs: PageJob<{ output: string }>[] = chosen
      .filter((e) => !seen.has(`${e.id}/${GENERATION}`))
      .map((example) => ({
        item_id: example.id,
        evaluator_id: GENERATION,
        target: target.experimentId,
        run: async () => {
          const fields = JSON.parse(example.fieldsJson) as Record<string, unknown>;
          const messages = messagesFor(config, fields);
          return { output: await ask(chat, { model, messages, parameters }) };
        },
      }));
    if (!(await workPage(pool, run.id, [], jobs, write, progress))) return { status: "STOPPED" };
    after = taken >= most ? "" : (page.page?.nextAfter ?? "");
  } while (after !== "");
  return { status: "COMPLETED" };
}
