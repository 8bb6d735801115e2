import type { AiIntegrationConfig } from "@argus/contracts";
import type { AiIntegrationConfig as ProtoAiConfig } from "@argus/proto/catalog/v1/ai_integrations";
import { invalid, parseObject, scopingsOf } from "../shared/requestJson.ts";

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
