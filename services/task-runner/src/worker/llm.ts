import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { AzureOpenAI } from "openai";
import type { OutboundPolicy } from "@argus/platform";
import type { ResolvedIntegration } from "@argus/proto/catalog/v1/ai_integrations";
import { ItemError, type Verdict } from "./managedEvaluators.ts";
import { bedrockChat, type AwsOptions } from "./bedrock.ts";
import { guardedFetch, integrationNamed, type Chat } from "./providerHttp.ts";
import { vertexChat, type GcpOptions } from "./vertex.ts";

/** A TEMPLATE evaluator's template_config, as the catalog stores it. */
export interface TemplateConfig {
  template: string;
  include_explanations?: boolean;
  classification_choices?: Record<string, number> | null;
  llm_config?: {
    ai_integration_id?: string;
    model_name?: string;
    invocation_parameters?: Record<string, unknown>;
  };
}

/** The names in a template's `{name}` placeholders, in order of first use. */
export const templateVariables = (template: string): string[] => [
  ...new Set([...template.matchAll(/\{\s*([A-Za-z_][\w.-]*)\s*\}/g)].map((m) => m[1]!)),
];

export const render = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\s*([A-Za-z_][\w.-]*)\s*\}/g, (whole, name: string) => values[name] ?? whole);

/** A prompt's variable syntax (the public API's input_variable_format). */
export type VariableFormat = "F_STRING" | "MUSTACHE" | "NONE";

/** `text` with its variables filled: `{name}` (F_STRING), `{{name}}` (MUSTACHE), or as is. */
export function renderAs(
  format: VariableFormat,
  text: string,
  values: Record<string, string>,
): string {
  if (format === "NONE") return text;
  if (format === "MUSTACHE")
    return text.replace(
      /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g,
      (whole, name: string) => values[name] ?? whole,
    );
  return render(text, values);
}

/** The instructions that make a model answer in a shape the label can be read from. */
export function instructions(labels: readonly string[], explain: boolean): string {
  const choice = `Answer with exactly one of these labels: ${labels.join(", ")}.`;
  return explain
    ? `${choice} First give a short explanation on a line starting with "EXPLANATION:", then the label on a line starting with "LABEL:".`
    : `${choice} Reply with the label only.`;
}

/**
 * The label of a model's answer: the `LABEL:` line's, else the one label the text contains
 * (longest first, so "not relevant" wins over "relevant"); none is the item's error.
 */
export function parseVerdict(
  text: string,
  choices: Record<string, number>,
  explain: boolean,
): Verdict {
  const labels = Object.keys(choices).sort((a, b) => b.length - a.length);
  const line = /LABEL:\s*(.+)/i.exec(text)?.[1]?.trim() ?? text;
  const lower = line.toLowerCase();
  const exact = labels.find((l) => lower.replace(/[."'`*\s]+$/g, "").trim() === l.toLowerCase());
  const found =
    exact ?? labels.find((l) => new RegExp(`\\b${escape(l.toLowerCase())}\\b`).test(lower));
  if (found === undefined)
    throw new ItemError(`no label among ${labels.join(", ")} in the model's answer`);
  const explanation = explain
    ? (/EXPLANATION:\s*([\s\S]*?)(?:\n\s*LABEL:|$)/i.exec(text)?.[1]?.trim() ?? "")
    : "";
  return { label: found, score: choices[found] ?? 0, explanation };
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** Azure OpenAI's GA API version, unless the integration's provider_metadata names one. */
const AZURE_API_VERSION = "2024-10-21";
/** Anthropic requires max_tokens; this is the default when the invocation parameters omit it. */
const ANTHROPIC_MAX_TOKENS = 1024;

/**
 * One client per integration and key, through the provider's maintained client library:
 * AWS_BEDROCK (the Converse API, `bedrock.ts`), VERTEX_AI (generateContent, `vertex.ts`),
 * AZURE_OPEN_AI (`base_url` is the resource endpoint, the model name its deployment), ANTHROPIC
 * (the Messages API), and the OpenAI chat completions API for OPEN_AI and every other provider
 * with an OpenAI-compatible `base_url`. Each client retries 429 (honouring Retry-After), 5xx and
 * timeouts 3 times; every call goes through the outbound guard. Once `stopped` (the run's)
 * aborts, no call starts and those out are torn down.
 */
export function providerChat(
  integration: ResolvedIntegration,
  policy: OutboundPolicy,
  timeoutMs: number,
  clouds: { aws: AwsOptions; gcp: GcpOptions } = {
    aws: { region: "us-east-1", stsEndpoint: "" },
    gcp: { endpoint: "" },
  },
  stopped?: AbortSignal,
): Chat {
  if (integration.provider === "AWS_BEDROCK")
    return bedrockChat(integration, policy, timeoutMs, clouds.aws, stopped);
  if (integration.provider === "VERTEX_AI")
    return vertexChat(integration, policy, timeoutMs, clouds.gcp, stopped);
  const headers = integration.headersJson
    ? (JSON.parse(integration.headersJson) as Record<string, string>)
    : {};
  const common = {
    maxRetries: 3,
    timeout: timeoutMs,
    fetch: guardedFetch(policy, timeoutMs, stopped),
    defaultHeaders: headers,
  };
  const base = integration.baseUrl;
  const metadata = integration.providerMetadataJson
    ? (JSON.parse(integration.providerMetadataJson) as Record<string, unknown>)
    : {};
  switch (integration.provider) {
    case "ANTHROPIC": {
      const client = new Anthropic({
        ...common,
        apiKey: integration.apiKey ?? "none",
        ...(base ? { baseURL: base } : {}),
      });
      return async ({ model, messages, parameters }) => {
        // The Messages API takes the system prompt apart from the turns.
        const system = messages.filter((m) => m.role === "system").map((m) => m.content);
        const res = await client.messages.create(
          {
            max_tokens: ANTHROPIC_MAX_TOKENS,
            ...parameters,
            model,
            ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
            messages: messages.flatMap((m) =>
              m.role === "system" ? [] : [{ role: m.role, content: m.content }],
            ),
            stream: false,
          },
          { signal: stopped },
        );
        const text = res.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
        return text.length > 0 ? text.join("") : undefined;
      };
    }
    case "AZURE_OPEN_AI": {
      if (!base)
        throw new ItemError(
          `${integrationNamed(integration)} (AZURE_OPEN_AI) has no base_url (the resource endpoint)`,
        );
      const version = metadata.azure_openai_version ?? metadata.api_version;
      const client = new AzureOpenAI({
        ...common,
        apiKey: integration.apiKey ?? "none",
        endpoint: base,
        apiVersion: typeof version === "string" && version !== "" ? version : AZURE_API_VERSION,
      });
      return (request) => openAiChat(client, request, stopped);
    }
    default: {
      const baseURL = base ?? (integration.provider === "OPEN_AI" ? OPENAI_BASE_URL : undefined);
      if (!baseURL)
        throw new ItemError(
          `${integrationNamed(integration)} (${integration.provider}) has no base_url this version can call`,
        );
      const client = new OpenAI({ ...common, apiKey: integration.apiKey ?? "none", baseURL });
      return (request) => openAiChat(client, request, stopped);
    }
  }
}

/** `stopped` as the request's own signal: an aborted request is neither retried nor waited on. */
async function openAiChat(client: OpenAI, request: Parameters<Chat>[0], stopped?: AbortSignal) {
  const res = await client.chat.completions.create(
    {
      ...request.parameters,
      model: request.model,
      messages: request.messages,
      stream: false,
    },
    { signal: stopped },
  );
  return res.choices[0]?.message?.content ?? undefined;
}

/** The model's text for one item; a provider that still fails, or no text, is the item's error. */
export async function ask(chat: Chat, request: Parameters<Chat>[0]): Promise<string> {
  let text: string | undefined;
  try {
    text = await chat(request);
  } catch (err) {
    throw new ItemError(`the provider failed: ${(err as Error).message}`);
  }
  if (typeof text !== "string") throw new ItemError("the model's answer has no text");
  return text;
}

/** Asks the model for one item's verdict. */
export async function judge(chat: Chat, config: TemplateConfig, prompt: string): Promise<Verdict> {
  const choices = config.classification_choices ?? {};
  if (Object.keys(choices).length === 0)
    throw new ItemError("the template has no classification_choices to read a label from");
  const explain = config.include_explanations === true;
  const model = config.llm_config?.model_name;
  if (!model) throw new ItemError("llm_config.model_name is missing");
  const text = await ask(chat, {
    model,
    messages: [
      { role: "system", content: instructions(Object.keys(choices), explain) },
      { role: "user", content: prompt },
    ],
    parameters: config.llm_config?.invocation_parameters ?? {},
  });
  return parseVerdict(text, choices, explain);
}
