import type { IntegrationInput as ProtoIntegrationInput } from "@argus/proto/catalog/v1/integrations";
import { invalid, parseObject, scopingsOf } from "../shared/requestJson.ts";
import type { IntegrationInput } from "./integrationDecider.ts";

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
