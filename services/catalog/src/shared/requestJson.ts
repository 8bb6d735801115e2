import type { AiIntegrationConfig, PromptVersionContent } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import type { AiIntegrationConfig as ProtoAiConfig } from "@argus/proto/catalog/v1/ai_integrations";
import type { EvaluatorVersionContent as ProtoEvaluatorContent } from "@argus/proto/catalog/v1/evaluators";
import type { IntegrationInput as ProtoIntegrationInput } from "@argus/proto/catalog/v1/integrations";
import type { PromptVersionContent as ProtoPromptContent } from "@argus/proto/catalog/v1/prompts";
import type { EvaluatorVersionContent } from "../evaluators/evaluatorConfigRules.ts";
import type { IntegrationInput } from "../integrations/integrationDecider.ts";

/** Wire values (JSON text in proto strings) as the domain's, or a 400 naming the field. */
const invalid = (detail: string) => new DomainError("invalid-request", detail);

function parseJson(field: string, value: string, fallback: unknown): unknown {
  if (value === "") return fallback;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw invalid(`${field} is not valid JSON`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A prompt version: messages must be an array, params objects (or absent). */
export function promptContentOf(c: ProtoPromptContent | undefined): PromptVersionContent {
  if (!c) throw invalid("version is required");
  const messages = parseJson("messages", c.messagesJson, []);
  if (!Array.isArray(messages)) throw invalid("messages must be an array");
  const object = (field: string, v: string) => {
    const parsed = parseJson(field, v, null);
    if (parsed !== null && !isObject(parsed)) throw invalid(`${field} must be an object`);
    return parsed;
  };
  return {
    commit_message: c.commitMessage,
    input_variable_format: c.inputVariableFormat,
    provider: c.provider,
    model: c.model,
    messages,
    invocation_params: object("invocation_params", c.invocationParamsJson),
    provider_params: object("provider_params", c.providerParamsJson),
  };
}

/** An evaluator version: the config must be a JSON object. */
export function evaluatorContentOf(c: ProtoEvaluatorContent | undefined): EvaluatorVersionContent {
  if (!c) throw invalid("version is required");
  let config: unknown;
  try {
    config = JSON.parse(c.configJson) as unknown;
  } catch {
    throw invalid("the version config is not valid JSON");
  }
  if (!isObject(config)) throw invalid("the version config must be an object");
  return { commit_message: c.commitMessage, config_kind: c.configKind, config };
}

export function parseObject(field: string, json: string | undefined): Record<string, never> | null {
  if (json === undefined) return null;
  try {
    const v = JSON.parse(json) as unknown;
    if (isObject(v)) return v as Record<string, never>;
  } catch {
    // reported below
  }
  throw invalid(`${field} must be a JSON object`);
}

const scopingsOf = (scopings: ProtoAiConfig["scopings"]) =>
  scopings.map((s) => ({ organization_id: s.organizationId || null, space_id: s.spaceId || null }));

/** An AGENT or EVALUATOR integration as written; JSON fields must be objects. */
export function integrationInputOf(i: ProtoIntegrationInput | undefined): IntegrationInput {
  if (!i) throw invalid("the integration is required");
  if (i.type !== "AGENT" && i.type !== "EVALUATOR")
    throw invalid("type must be AGENT or EVALUATOR");
  return {
    type: i.type,
    name: i.name,
    description: i.description ?? null,
    endpoint: i.endpoint,
    input_schema: parseObject("config.input_schema", i.inputSchemaJson || "{}") ?? {},
    headers: parseObject("config.headers", i.headersJson),
    request_presets: i.requestPresets.map((p) => ({
      name: p.name,
      description: p.description ?? null,
      config: parseObject("a preset's config", p.configJson) ?? {},
    })),
    scopings: scopingsOf(i.scopings),
  };
}

/** An AI integration's config; defaults are the gateway's (it knows what was omitted). */
export function aiConfigOf(c: ProtoAiConfig | undefined): AiIntegrationConfig {
  if (!c) throw invalid("config is required");
  return {
    name: c.name,
    provider: c.provider,
    base_url: c.baseUrl ?? null,
    model_names: c.modelNames,
    headers: parseObject("headers", c.headersJson),
    enable_default_models: c.enableDefaultModels,
    function_calling_enabled: c.functionCallingEnabled,
    auth_type: c.authType,
    provider_metadata: parseObject("provider_metadata", c.providerMetadataJson),
    scopings: scopingsOf(c.scopings),
  };
}
