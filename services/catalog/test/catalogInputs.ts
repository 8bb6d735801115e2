// What the catalog's integration tests create again and again: one valid value of each input.
import type { AiIntegrationConfig } from "@argus/proto/catalog/v1/ai_integrations";
import type { EvaluatorVersionContent } from "@argus/proto/catalog/v1/evaluators";
import type { PromptVersionContent } from "@argus/proto/catalog/v1/prompts";
import { uniqueName } from "@argus/testkit";

export const promptContent = (over: Partial<PromptVersionContent> = {}): PromptVersionContent => ({
  commitMessage: "initial",
  inputVariableFormat: "F_STRING",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messagesJson: JSON.stringify([{ role: "USER", content: "Hello {name}" }]),
  invocationParamsJson: JSON.stringify({ temperature: 0.2 }),
  providerParamsJson: "",
  ...over,
});

export const codeEvaluatorContent = (commitMessage = "initial"): EvaluatorVersionContent => ({
  commitMessage,
  configKind: "CODE",
  configJson: JSON.stringify({ type: "CUSTOM", name: "n", code: "c", variables: [] }),
});

/** An OPEN_AI integration's config with a fresh name, account-wide unless scoped. */
export const aiIntegrationConfig = (
  over: Partial<AiIntegrationConfig> = {},
): AiIntegrationConfig => ({
  name: uniqueName("ai"),
  provider: "OPEN_AI",
  modelNames: [],
  enableDefaultModels: false,
  functionCallingEnabled: true,
  authType: "DEFAULT",
  scopings: [],
  ...over,
});
