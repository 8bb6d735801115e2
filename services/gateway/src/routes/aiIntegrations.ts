import { DomainError, decodeId, encodeId } from "@argus/platform";
import {
  AiIntegrationServiceService,
  type AiIntegration,
  type AiIntegrationConfig,
  type AiIntegrationScoping,
} from "@argus/proto/catalog/v1/ai_integrations";
import type { Backend } from "../backend.ts";
import { type PathParam, pathId, spaceListQuery } from "./params.ts";
import type { components } from "../generated/openapi.ts";
import { noContent, type Body, type ResourceHandlers } from "../http/handler.ts";
import { listPage } from "./listPage.ts";

export type ScopingBody = components["schemas"]["AiIntegrationScoping"];

type IntegrationBody = Body<"create_ai_integration"> | Body<"update_ai_integration">;

/**
 * Provider metadata with the `kind` the Python SDK dispatches on (it cannot parse metadata
 * without one): the stored `kind`, else inferred from the fields or the provider; metadata of
 * neither kind is answered as null (README, AI integrations).
 */
function publicProviderMetadata(provider: string, json: string | undefined) {
  if (json === undefined) return null;
  const m = JSON.parse(json) as Record<string, unknown> | null;
  if (m === null || typeof m !== "object") return null;
  if (m.kind === "AWS" || m.kind === "GCP") return m;
  const gcp = ["project_id", "location", "project_access_label"].some((k) => k in m);
  const kind =
    "role_arn" in m || (!gcp && provider === "AWS_BEDROCK")
      ? "AWS"
      : gcp || provider === "VERTEX_AI"
        ? "GCP"
        : null;
  return kind === null ? null : { kind, ...m };
}

/** Scopings as the public API shows them (null ids widen the scope). */
export const publicScopings = (scopings: readonly AiIntegrationScoping[]) =>
  scopings.map((s) => ({
    organization_id: s.organizationId ? encodeId("Organization", s.organizationId) : null,
    space_id: s.spaceId ? encodeId("Space", s.spaceId) : null,
  }));

function toPublicAiIntegration(a: AiIntegration) {
  const c = a.config!;
  return {
    id: encodeId("AiIntegration", a.id),
    name: c.name,
    provider: c.provider,
    has_api_key: a.hasApiKey,
    api_key_hint: a.apiKeyHint || null,
    base_url: c.baseUrl ?? null,
    model_names: c.modelNames,
    headers: c.headersJson === undefined ? null : (JSON.parse(c.headersJson) as unknown),
    enable_default_models: c.enableDefaultModels,
    function_calling_enabled: c.functionCallingEnabled,
    auth_type: c.authType,
    provider_metadata: publicProviderMetadata(c.provider, c.providerMetadataJson),
    scopings: publicScopings(c.scopings),
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    created_by_user_id: a.createdByUserId ? encodeId("User", a.createdByUserId) : "",
  };
}

export function scopingOf(s: ScopingBody): AiIntegrationScoping {
  const decode = (type: string, id: string | null | undefined) => {
    if (id === null || id === undefined) return "";
    const uuid = decodeId(type, id);
    if (uuid === null)
      throw new DomainError(
        "unprocessable-entity",
        `a scoping names an unknown ${type.toLowerCase()}`,
      );
    return uuid;
  };
  return {
    organizationId: decode("Organization", s.organization_id),
    spaceId: decode("Space", s.space_id),
  };
}

/** The body as a whole config, with ax-client's defaults for what was omitted. */
function configOf(b: IntegrationBody): AiIntegrationConfig {
  return {
    name: b.name ?? "",
    provider: b.provider ?? "",
    ...(typeof b.base_url === "string" ? { baseUrl: b.base_url } : {}),
    modelNames: b.model_names ?? [],
    ...(b.headers ? { headersJson: JSON.stringify(b.headers) } : {}),
    enableDefaultModels: b.enable_default_models ?? false,
    functionCallingEnabled: b.function_calling_enabled ?? true,
    authType: b.auth_type ?? "DEFAULT",
    ...(b.provider_metadata ? { providerMetadataJson: JSON.stringify(b.provider_metadata) } : {}),
    scopings: (b.scopings ?? []).map(scopingOf),
  };
}

const integrationId = (req: PathParam<"integration_id">): string => {
  const id = pathId("AiIntegration", req.params.integration_id, "AI integration");
  return id;
};

export function aiIntegrationHandlers(catalog: Backend): ResourceHandlers<"ai-integrations"> {
  const S = AiIntegrationServiceService;
  return {
    async list_ai_integrations(req) {
      const query = spaceListQuery(req);
      if (query === null) return listPage("ai_integrations", []);
      const res = await catalog.call(S.listAiIntegrations, { ...query, providers: [] }, req);
      return listPage("ai_integrations", res.aiIntegrations.map(toPublicAiIntegration), res.page);
    },

    async create_ai_integration(req) {
      const b = req.body;
      const res = await catalog.call(
        S.createAiIntegration,
        { config: configOf(b), ...(typeof b.api_key === "string" ? { apiKey: b.api_key } : {}) },
        req,
      );
      return { status: 201, body: toPublicAiIntegration(res) };
    },

    async get_ai_integration(req) {
      const res = await catalog.call(S.getAiIntegration, { id: integrationId(req) }, req);
      return { status: 200, body: toPublicAiIntegration(res) };
    },

    async update_ai_integration(req) {
      const b = req.body;
      const res = await catalog.call(
        S.updateAiIntegration,
        {
          id: integrationId(req),
          fields: Object.keys(b),
          config: configOf(b),
          ...(typeof b.api_key === "string" ? { apiKey: b.api_key } : {}),
          // This group replaces provider_metadata whole and has no model-source rule.
          providerMetadataMergeJson: "",
          requireModelSource: false,
        },
        req,
      );
      return { status: 200, body: toPublicAiIntegration(res) };
    },

    delete_ai_integration: (req) =>
      noContent(catalog.call(S.deleteAiIntegration, { id: integrationId(req) }, req)),
  };
}
