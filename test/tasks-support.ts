import type { Json } from "./support.ts";

/** The admin's JSON calls that throw on anything but 2xx (each suite has its own). */
export type AsAdmin = (method: string, path: string, body?: unknown) => Promise<Json>;

/** A run that has ended, whichever way. */
export const terminal = (r: Json) => ["COMPLETED", "FAILED", "CANCELLED"].includes(r.status);

/** The task run once `ok` holds of it (default: once it ended), polled through the API. */
export async function untilRun(
  asAdmin: AsAdmin,
  runId: string,
  ok: (run: Json) => boolean = terminal,
  ms = 60_000,
): Promise<Json> {
  const deadline = Date.now() + ms;
  for (;;) {
    const run = await asAdmin("GET", `/v2/task-runs/${runId}`);
    if (ok(run)) return run;
    if (Date.now() > deadline)
      throw new Error(`run not as wanted in ${ms} ms: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A dataset of `size` examples (`{input: q<i>, expected: a<i>}`, written 1000 at a time) in
 * `spaceId` and an experiment on it with one run per example, `output(i)` its output (default:
 * every other one matches its example's `expected`).
 */
export async function taskExperiment(
  asAdmin: AsAdmin,
  spaceId: string,
  name: (what: string) => string,
  size: number,
  output: (i: number) => string = (i) => (i % 2 === 0 ? `a${i}` : "wrong"),
): Promise<{ datasetId: string; experimentId: string }> {
  const examples = Array.from({ length: size }, (_, i) => ({ input: `q${i}`, expected: `a${i}` }));
  const dataset = await asAdmin("POST", "/v2/datasets", {
    space_id: spaceId,
    name: name("ds"),
    examples: examples.slice(0, 1000),
  });
  for (let i = 1000; i < size; i += 1000)
    await asAdmin("POST", `/v2/datasets/${dataset.id}/examples`, {
      examples: examples.slice(i, i + 1000),
    });
  const ids: string[] = [];
  let cursor = "";
  do {
    const page = await asAdmin(
      "GET",
      `/v2/datasets/${dataset.id}/examples?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
    );
    ids.push(...(page.examples as Json[]).map((e) => e.id as string));
    cursor = page.pagination.has_more ? page.pagination.next_cursor : "";
  } while (cursor);
  const runs = ids.map((id, i) => ({ example_id: id, output: output(i) }));
  const created = await asAdmin("POST", "/v2/experiments", {
    name: name("exp"),
    dataset_id: dataset.id,
    experiment_runs: runs.slice(0, 1000),
  });
  for (let i = 1000; i < runs.length; i += 1000)
    await asAdmin("POST", `/v2/experiments/${created.id}/runs`, {
      experiment_runs: runs.slice(i, i + 1000),
    });
  return { datasetId: dataset.id as string, experimentId: created.id as string };
}

/** The MANAGED EXACT_MATCH code_config over `output` and `expected`. */
const EXACT_MATCH_CODE = {
  type: "MANAGED",
  name: "exact_match",
  managed_evaluator: "EXACT_MATCH",
  variables: ["output", "expected"],
} as const;

/** A CODE evaluator in `spaceId` running EXACT_MATCH; its id. */
export async function exactMatchEvaluator(
  asAdmin: AsAdmin,
  spaceId: string,
  name: string,
): Promise<string> {
  const created = await asAdmin("POST", "/v2/evaluators", {
    space_id: spaceId,
    name,
    type: "CODE",
    version: { commit_message: "c", code_config: EXACT_MATCH_CODE },
  });
  return created.id as string;
}

/**
 * A TEMPLATE evaluator in `spaceId` no run can call: its AI integration is an AWS Bedrock proxy
 * without the proxy's address (`base_url`), so every run of it ends FAILED, with the reason
 * `…(AWS_BEDROCK proxy) has no base_url`. Its id.
 */
export async function unrunnableTemplateEvaluator(
  asAdmin: AsAdmin,
  spaceId: string,
  name: string,
): Promise<string> {
  const integration = await asAdmin("POST", "/v2/ai-integrations", {
    name: `${name}-bedrock`,
    provider: "AWS_BEDROCK",
    auth_type: "PROXY_WITH_HEADERS",
  });
  const created = await asAdmin("POST", "/v2/evaluators", {
    space_id: spaceId,
    name,
    type: "TEMPLATE",
    version: {
      commit_message: "c",
      template_config: {
        name: "judge",
        template: "Is {output} right?",
        include_explanations: false,
        use_function_calling_if_available: false,
        classification_choices: { right: 1, wrong: 0 },
        llm_config: {
          ai_integration_id: integration.id,
          model_name: "anthropic.claude",
          invocation_parameters: {},
          provider_parameters: {},
        },
      },
    },
  });
  return created.id as string;
}

/**
 * A TEMPLATE evaluator in `spaceId` judging `{output}` relevant or irrelevant on the AI
 * integration's `model`; its id.
 */
export async function relevanceJudge(
  asAdmin: AsAdmin,
  spaceId: string,
  o: { name: string; column: string; integrationId: string; model: string; explain?: boolean },
): Promise<string> {
  const created = await asAdmin("POST", "/v2/evaluators", {
    space_id: spaceId,
    name: o.name,
    type: "TEMPLATE",
    version: {
      commit_message: "c",
      template_config: {
        name: o.column,
        template: "Answer: {output}. Relevant?",
        include_explanations: o.explain ?? true,
        use_function_calling_if_available: false,
        classification_choices: { relevant: 1, irrelevant: 0 },
        llm_config: {
          ai_integration_id: o.integrationId,
          model_name: o.model,
          invocation_parameters: {},
          provider_parameters: {},
        },
      },
    },
  });
  return created.id as string;
}
