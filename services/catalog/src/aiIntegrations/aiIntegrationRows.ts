import type { AiIntegrationConfig, AiIntegrationKeyFacts } from "@argus/contracts";
import type { AiIntegration } from "@argus/proto/catalog/v1/ai_integrations";

/** The projected row: the integration's configuration and key facts as events carry them. */
export interface AiIntegrationRow extends AiIntegrationConfig, AiIntegrationKeyFacts {
  id: string;
  account_id: string;
  created_by_user_id: string;
  created_at: Date;
  updated_at: Date;
}

// The key itself lives in ai_integration_secrets and is deliberately not selectable here.
export const AI_INTEGRATION_COLUMNS = `id, account_id, name, provider, base_url, model_names, headers,
  enable_default_models, function_calling_enabled, auth_type, provider_metadata, scopings,
  has_api_key, api_key_hint, created_by_user_id, created_at, updated_at`;

export function toAiIntegration(r: AiIntegrationRow): AiIntegration {
  return {
    id: r.id,
    config: {
      name: r.name,
      provider: r.provider,
      ...(r.base_url === null ? {} : { baseUrl: r.base_url }),
      modelNames: r.model_names,
      ...(r.headers === null ? {} : { headersJson: JSON.stringify(r.headers) }),
      enableDefaultModels: r.enable_default_models,
      functionCallingEnabled: r.function_calling_enabled,
      authType: r.auth_type,
      ...(r.provider_metadata === null
        ? {}
        : { providerMetadataJson: JSON.stringify(r.provider_metadata) }),
      scopings: r.scopings.map((s) => ({
        organizationId: s.organization_id ?? "",
        spaceId: s.space_id ?? "",
      })),
    },
    hasApiKey: r.has_api_key,
    apiKeyHint: r.api_key_hint,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** Where an AI integration's key is sealed to (`SecretBox`): its own row only. */
export const apiKeyBinding = (id: string) => `ai_integration_secrets.api_key:${id}`;
