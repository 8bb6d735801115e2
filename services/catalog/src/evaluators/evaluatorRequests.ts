import type { EvaluatorVersionContent as ProtoEvaluatorContent } from "@argus/proto/catalog/v1/evaluators";
import { invalid, isObject } from "../shared/requestJson.ts";
import type { EvaluatorVersionContent } from "./evaluatorConfigRules.ts";

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
