import { invalid, requireMaxLength } from "../shared/catalogRules.ts";

/** REMOTE versions are stored and returned as sent: Argus runs no evaluator (README). */
const EVALUATOR_TYPES_CREATABLE = ["TEMPLATE", "CODE", "REMOTE"] as const;
const CONFIG_FIELD: Record<string, string> = {
  TEMPLATE: "template_config",
  CODE: "code_config",
  REMOTE: "remote_config",
};
const COMMIT_MESSAGE_MAX = 1000;
const EVAL_COLUMN_NAME = /^[a-zA-Z0-9_\s\-&()]+$/;

/** A version as the caller wrote it: which config it carries and that config, parsed. */
export interface EvaluatorVersionContent {
  commit_message: string;
  config_kind: string;
  config: Record<string, unknown>;
}

export function requireCreatableType(evaluatorType: string): void {
  if (!(EVALUATOR_TYPES_CREATABLE as readonly string[]).includes(evaluatorType))
    throw invalid("only TEMPLATE, CODE and REMOTE evaluators can be created");
}

/** The config with the defaults the public API documents filled in, or the rule it breaks. */
export function checkedConfig(
  evaluatorType: string,
  v: EvaluatorVersionContent,
): Record<string, unknown> {
  if (v.config_kind !== evaluatorType)
    throw invalid(
      `a ${evaluatorType} evaluator's version needs ${CONFIG_FIELD[evaluatorType] ?? "its config"}`,
    );
  requireMaxLength("commit_message", v.commit_message, COMMIT_MESSAGE_MAX);
  const c = v.config;
  if (evaluatorType === "REMOTE") {
    if (typeof c.integration_id !== "string" || c.integration_id.trim() === "")
      throw invalid("remote_config.integration_id is required");
    return { integration_id: c.integration_id };
  }
  if (typeof c.name !== "string" || !EVAL_COLUMN_NAME.test(c.name))
    throw invalid("the config name must match ^[a-zA-Z0-9_\\s\\-&()]+$");
  if (evaluatorType === "TEMPLATE") {
    if (typeof c.template !== "string" || c.template.trim() === "")
      throw invalid("template_config.template must not be empty");
    const choices = c.classification_choices ?? null;
    if (choices !== null && (typeof choices !== "object" || Object.keys(choices).length === 0))
      throw invalid("template_config.classification_choices needs at least one choice, or null");
    const functionCalling = functionCallingOf(c);
    return {
      use_structured_output: true,
      direction: "MAXIMIZE",
      data_granularity: "SPAN",
      ...c,
      classification_choices: choices,
      use_function_calling: functionCalling,
      use_function_calling_if_available: functionCalling,
    };
  }
  if (c.type === "MANAGED" && typeof c.managed_evaluator !== "string")
    throw invalid("a MANAGED code_config needs managed_evaluator");
  if (c.type === "CUSTOM" && (typeof c.code !== "string" || c.code.trim() === ""))
    throw invalid("a CUSTOM code_config needs code");
  if (c.type !== "MANAGED" && c.type !== "CUSTOM")
    throw invalid("code_config.type must be MANAGED or CUSTOM");
  return c;
}

/**
 * `use_function_calling` (the Python SDK's name) and `use_function_calling_if_available` (the
 * TypeScript client's) are one setting: either may be sent, both must then agree.
 */
function functionCallingOf(c: Record<string, unknown>): boolean {
  const sdk = c.use_function_calling;
  const ts = c.use_function_calling_if_available;
  if (typeof sdk === "boolean" && typeof ts === "boolean" && sdk !== ts)
    throw invalid("use_function_calling and use_function_calling_if_available disagree");
  const value = typeof sdk === "boolean" ? sdk : ts;
  if (typeof value !== "boolean")
    throw invalid(
      "template_config needs use_function_calling (or use_function_calling_if_available)",
    );
  return value;
}

/** The public id of the AI integration a TEMPLATE config runs on, when it names one. */
export function integrationIdOf(v: EvaluatorVersionContent): string | undefined {
  if (v.config_kind === "REMOTE")
    return typeof v.config.integration_id === "string" ? v.config.integration_id : undefined;
  if (v.config_kind !== "TEMPLATE") return undefined;
  const llm = v.config.llm_config;
  if (typeof llm !== "object" || llm === null) return undefined;
  const id = (llm as Record<string, unknown>).ai_integration_id;
  return typeof id === "string" ? id : undefined;
}
