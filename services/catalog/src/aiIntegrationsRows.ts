import { DomainError } from "@argus/platform";
import type {
  AiIntegration,
  AiIntegrationConfig as ProtoConfig,
} from "@argus/proto/catalog/v1/ai_integrations";
import type { AiIntegrationConfig, Scoping } from "./domain/aiIntegration.ts";

export interface AiIntegrationRow {
  id: string;
  account_id: string;
  name: string;
  provider: string;
  base_url: string | null;
  model_names: string[];
  headers: Record<string, string> | null;
  enable_default_models: boolean;
  function_calling_enabled: boolean;
  auth_type: string;
  provider_metadata: Record<string, unknown> | null;
  scopings: Scoping[];
  has_api_key: boolean;
  api_key_hint: string;
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

function parseObject(field: string, json: string | undefined): Record<string, never> | null {
  if (json === undefined) return null;
  try {
    const v = JSON.parse(json) as unknown;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, never>;
  } catch {
    // reported below
  }
  throw new DomainError("invalid-request", `${field} must be a JSON object`);
}

/** The wire config as the domain's; defaults are the gateway's (it knows what was omitted). */
export function configOf(c: ProtoConfig | undefined): AiIntegrationConfig {
  if (!c) throw new DomainError("invalid-request", "config is required");
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
    scopings: c.scopings.map((s) => ({
      organization_id: s.organizationId || null,
      space_id: s.spaceId || null,
    })),
  };
}
