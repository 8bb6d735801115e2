import { invalid, requireMaxLength } from "./rules.ts";

export const EVALUATOR_TYPES_CREATABLE = ["TEMPLATE", "CODE"] as const;
export const COMMIT_MESSAGE_MAX = 1000;
const EVAL_COLUMN_NAME = /^[a-zA-Z0-9_\s\-&()]+$/;

/** A version as the caller wrote it: which config it carries and that config, parsed. */
export interface EvaluatorVersionContent {
  commit_message: string;
  config_kind: string;
  config: Record<string, unknown>;
}

export function requireCreatableType(evaluatorType: string): void {
  if (!(EVALUATOR_TYPES_CREATABLE as readonly string[]).includes(evaluatorType))
    throw invalid("only TEMPLATE and CODE evaluators can be created");
}

/** The config with the defaults the public API documents filled in, or the rule it breaks. */
export function checkedConfig(
  evaluatorType: string,
  v: EvaluatorVersionContent,
): Record<string, unknown> {
  if (v.config_kind !== evaluatorType)
    throw invalid(
      evaluatorType === "TEMPLATE"
        ? "a TEMPLATE evaluator's version needs template_config"
        : "a CODE evaluator's version needs code_config",
    );
  requireMaxLength("commit_message", v.commit_message, COMMIT_MESSAGE_MAX);
  const c = v.config;
  if (typeof c.name !== "string" || !EVAL_COLUMN_NAME.test(c.name))
    throw invalid("the config name must match ^[a-zA-Z0-9_\\s\\-&()]+$");
  if (evaluatorType === "TEMPLATE") {
    if (typeof c.template !== "string" || c.template.trim() === "")
      throw invalid("template_config.template must not be empty");
    const choices = c.classification_choices;
    if (typeof choices !== "object" || choices === null || Object.keys(choices).length === 0)
      throw invalid("template_config.classification_choices needs at least one choice");
    return { use_structured_output: true, direction: "MAXIMIZE", data_granularity: "SPAN", ...c };
  }
  if (c.type === "MANAGED" && typeof c.managed_evaluator !== "string")
    throw invalid("a MANAGED code_config needs managed_evaluator");
  if (c.type === "CUSTOM" && (typeof c.code !== "string" || c.code.trim() === ""))
    throw invalid("a CUSTOM code_config needs code");
  if (c.type !== "MANAGED" && c.type !== "CUSTOM")
    throw invalid("code_config.type must be MANAGED or CUSTOM");
  return c;
}

/** The public id of the AI integration a TEMPLATE config runs on, when it names one. */
export function integrationIdOf(v: EvaluatorVersionContent): string | undefined {
  if (v.config_kind !== "TEMPLATE") return undefined;
  const llm = v.config.llm_config;
  if (typeof llm !== "object" || llm === null) return undefined;
  const id = (llm as Record<string, unknown>).ai_integration_id;
  return typeof id === "string" ? id : undefined;
}
