import type { PromptVersionContent } from "@argus/contracts";
import type { PromptVersionContent as ProtoPromptContent } from "@argus/proto/catalog/v1/prompts";
import { invalid, isObject, parseJson } from "../shared/requestJson.ts";

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
