import { DomainError, encodeId } from "@argus/platform";
import type {
  AiIntegration,
  AiIntegrationConfig,
  AiIntegrationScoping,
} from "@argus/proto/catalog/v1/ai_integrations";
import type { components } from "../generated/openapi.ts";
import type { AnyOf } from "../http/handler.ts";
import { publicScopings } from "./aiIntegrations.ts";

/**
 * An LLM integration of /v2/integrations is an AI integration seen through the public API's
 * per-provider shapes: one store, one id (usable as a TEMPLATE evaluator's
 * `ai_integration_id`), two representations. This module is the translation, both ways.
 */

export const LLM_PROVIDERS = [
  "OPEN_AI",
  "ANTHROPIC",
  "GEMINI",
  "AWS_BEDROCK",
  "CUSTOM",
  "VERTEX_AI",
  "NVIDIA_NIM",
  "LITELLM",
  "FIREWORKS",
  "TOGETHER_AI",
] as const;
type Provider = (typeof LLM_PROVIDERS)[number];
export const isLlmProvider = (p: string): p is Provider =>
  (LLM_PROVIDERS as readonly string[]).includes(p);

/** What a provider served at an address of the user's (base_url, headers) takes. */
const SELF_HOSTED = ["api_key", "is_function_calling_enabled", "base_url", "headers"];

/** Which config fields each provider takes (the public Create/Update<Provider>Config). */
const TAKES: Record<Provider, ReadonlySet<string>> = {
  OPEN_AI: new Set(["api_key", "is_function_calling_enabled"]),
  GEMINI: new Set(["api_key", "is_function_calling_enabled"]),
  ANTHROPIC: new Set(["api_key", "is_function_calling_enabled", "base_url"]),
  FIREWORKS: new Set([
    "api_key",
    "is_function_calling_enabled",
    "is_default_models_enabled",
    "model_names",
  ]),
  TOGETHER_AI: new Set([
    "api_key",
    "is_function_calling_enabled",
    "is_default_models_enabled",
    "model_names",
  ]),
  LITELLM: new Set([...SELF_HOSTED, "model_names"]),
  NVIDIA_NIM: new Set([...SELF_HOSTED, "is_default_models_enabled", "model_names"]),
  CUSTOM: new Set([...SELF_HOSTED, "is_default_models_enabled", "model_names", "auth"]),
  AWS_BEDROCK: new Set(["auth", "is_default_models_enabled", "model_names"]),
  VERTEX_AI: new Set(["project_id", "location", "project_access_label"]),
};
/** Providers whose models come only from the integration: one source must remain. */
const NEEDS_MODEL_SOURCE = new Set<Provider>(["AWS_BEDROCK", "CUSTOM", "NVIDIA_NIM"]);
/** Providers on which `base_url` is required on the resource. */
const NEEDS_BASE_URL = new Set<Provider>(["CUSTOM", "LITELLM"]);

type CreateConfig = AnyOf<components["schemas"]["CreateLlmConfig"]>;
type UpdateConfig = components["schemas"]["UpdateLlmConfig"];
/** Any provider's auth block, created or updated. */
type Auth = AnyOf<NonNullable<CreateConfig["auth"]> | NonNullable<UpdateConfig["auth"]>>;

const unprocessable = (detail: string) => new DomainError("unprocessable-entity", detail);

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const obj = (v: string | undefined): Record<string, unknown> | null =>
  v === undefined ? null : (JSON.parse(v) as Record<string, unknown> | null);

/** Public LLM integration of an AI integration (its provider must be an LLM provider). */
export function toLlmIntegration(a: AiIntegration) {
  const c = a.config!;
  const p = c.provider as Provider;
  const takes = TAKES[p];
  const meta = obj(c.providerMetadataJson) ?? {};
  const headerNames = Object.keys(obj(c.headersJson) ?? {});
  const oauth = c.authType === "OAUTH2_CLIENT_CREDENTIALS";
  const config: Record<string, unknown> = { provider: p };
  if (takes.has("is_function_calling_enabled"))
    config.is_function_calling_enabled = c.functionCallingEnabled;
  if (takes.has("api_key")) config.has_api_key = a.hasApiKey && !oauth;
  if (takes.has("base_url")) config.base_url = c.baseUrl ?? null;
  if (takes.has("headers")) config.header_names = headerNames;
  if (takes.has("is_default_models_enabled"))
    config.is_default_models_enabled = c.enableDefaultModels;
  if (takes.has("model_names")) config.model_names = c.modelNames;
  if (p === "VERTEX_AI")
    for (const k of ["project_id", "location", "project_access_label"])
      config[k] = str(meta[k]) ?? "";
  if (p === "CUSTOM")
    config.auth = oauth
      ? {
          auth_type: c.authType,
          token_url: str(meta.token_url) ?? "",
          client_id: str(meta.client_id) ?? "",
          has_client_secret: a.hasApiKey,
          scopes: str(meta.scopes) ?? null,
          audience: str(meta.audience) ?? null,
        }
      : { auth_type: "DEFAULT", has_api_key: a.hasApiKey };
  if (p === "AWS_BEDROCK") {
    const base_url = c.baseUrl ?? null;
    config.auth =
      c.authType === "BEARER_TOKEN"
        ? { auth_type: c.authType, has_api_key: a.hasApiKey, base_url }
        : c.authType === "PROXY_WITH_HEADERS"
          ? { auth_type: c.authType, base_url, header_names: headerNames }
          : {
              auth_type: "DEFAULT",
              role_arn: str(meta.role_arn) ?? "",
              external_id: str(meta.external_id) ?? null,
              base_url,
            };
  }
  return {
    id: encodeId("AiIntegration", a.id),
    type: "LLM",
    name: c.name,
    scopings: publicScopings(c.scopings),
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    created_by_user_id: a.createdByUserId ? encodeId("User", a.createdByUserId) : null,
    config,
  };
}

/** What an auth block makes of the AI integration: its type, secret, address and metadata. */
function authParts(provider: Provider, auth: Auth) {
  const secret = str(auth.api_key) ?? str(auth.client_secret);
  const meta =
    auth.auth_type === "OAUTH2_CLIENT_CREDENTIALS"
      ? {
          kind: "OAUTH2",
          token_url: auth.token_url,
          client_id: auth.client_id,
          scopes: auth.scopes ?? null,
          audience: auth.audience ?? null,
        }
      : provider === "AWS_BEDROCK" && auth.auth_type === "DEFAULT"
        ? { kind: "AWS", role_arn: auth.role_arn, external_id: auth.external_id ?? null }
        : null;
  return {
    authType: auth.auth_type,
    secret: secret ?? null,
    baseUrl: str(auth.base_url),
    headers: auth.headers,
    meta,
  };
}

function requireModelSource(p: Provider, c: AiIntegrationConfig) {
  if (NEEDS_MODEL_SOURCE.has(p) && !c.enableDefaultModels && c.modelNames.length === 0)
    throw unprocessable(
      `a ${p} integration needs a model source: is_default_models_enabled or model_names`,
    );
}

/** A create request's config as the AI integration it becomes, and its secret. */
export function createLlm(
  name: string,
  scopings: AiIntegrationScoping[],
  sent: components["schemas"]["CreateLlmConfig"],
): { config: AiIntegrationConfig; apiKey: string | null } {
  // The provider selects the schema; each admits only its own fields (the others are absent).
  const body: CreateConfig = sent;
  const p = body.provider;
  if (p === "CUSTOM" && body.api_key !== undefined && body.auth !== undefined)
    throw unprocessable("api_key and auth are exclusive: send one of them");
  const auth = body.auth ? authParts(p, body.auth) : undefined;
  const headers = auth?.headers ?? body.headers;
  const meta =
    p === "VERTEX_AI"
      ? {
          kind: "GCP",
          project_id: body.project_id,
          location: body.location,
          project_access_label: body.project_access_label,
        }
      : (auth?.meta ?? null);
  const baseUrl = auth?.baseUrl ?? str(body.base_url);
  const config: AiIntegrationConfig = {
    name,
    provider: p,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    modelNames: body.model_names ?? [],
    ...(headers ? { headersJson: JSON.stringify(headers) } : {}),
    enableDefaultModels: body.is_default_models_enabled ?? false,
    functionCallingEnabled: body.is_function_calling_enabled ?? true,
    authType: auth?.authType ?? "DEFAULT",
    ...(meta ? { providerMetadataJson: JSON.stringify(meta) } : {}),
    scopings,
  };
  requireModelSource(p, config);
  return { config, apiKey: auth ? auth.secret : (str(body.api_key) ?? null) };
}

/**
 * A PATCH of an LLM integration as an AI integration update: the fields that change (the AI
 * integration's names), the whole new config, and the key (`undefined` unchanged, null
 * removed). Provider-specific fields are merged here, on the current integration.
 */
export function updateLlm(
  current: AiIntegration,
  body: { name?: string; scopings?: AiIntegrationScoping[]; config?: UpdateConfig },
): {
  fields: string[];
  config: AiIntegrationConfig;
  apiKey: string | null | undefined;
  /** VERTEX_AI fields sent, merged into the stored ones by the catalog (race-free). */
  metadataMerge: Record<string, unknown> | undefined;
  /** The provider needs a model source: checked again on the state the update lands on. */
  requireModelSource: boolean;
} {
  const now = current.config!;
  const p = now.provider as Provider;
  const c = body.config ?? {};
  if (c.provider !== undefined && c.provider !== p)
    throw unprocessable(`config.provider is ${p}; it cannot change (delete and create instead)`);
  const sent = Object.keys(c).filter((k) => k !== "provider");
  const foreign = sent.filter((k) => !TAKES[p].has(k));
  if (foreign.length > 0)
    throw unprocessable(`a ${p} integration does not take ${foreign.join(", ")}`);
  if (p === "CUSTOM" && "api_key" in c && "auth" in c)
    throw unprocessable("api_key and auth are exclusive: send one of them");
  if (NEEDS_BASE_URL.has(p) && c.base_url === null)
    throw unprocessable(`base_url is required on a ${p} integration; it cannot be cleared`);
  if (body.name === undefined && body.scopings === undefined && sent.length === 0)
    throw new DomainError("invalid-request", "at least one field besides type must be provided");

  const next: AiIntegrationConfig = { ...now, scopings: body.scopings ?? now.scopings };
  if (body.name !== undefined) next.name = body.name;
  const fields = new Set<string>();
  if (body.name !== undefined) fields.add("name");
  if (body.scopings !== undefined) fields.add("scopings");
  let apiKey: string | null | undefined;
  const set = <K extends keyof AiIntegrationConfig>(
    field: string,
    key: K,
    value: AiIntegrationConfig[K],
  ) => {
    fields.add(field);
    next[key] = value;
  };
  const setOptional = (
    field: string,
    key: "baseUrl" | "headersJson" | "providerMetadataJson",
    value: string | undefined,
  ) => {
    fields.add(field);
    if (value === undefined) delete next[key];
    else next[key] = value;
  };
  if ("api_key" in c) {
    fields.add("api_key");
    apiKey = str(c.api_key) ?? null;
  }
  if (typeof c.is_function_calling_enabled === "boolean")
    set("function_calling_enabled", "functionCallingEnabled", c.is_function_calling_enabled);
  if ("base_url" in c) setOptional("base_url", "baseUrl", str(c.base_url));
  if ("headers" in c)
    setOptional("headers", "headersJson", c.headers ? JSON.stringify(c.headers) : undefined);
  if (typeof c.is_default_models_enabled === "boolean")
    set("enable_default_models", "enableDefaultModels", c.is_default_models_enabled);
  if (Array.isArray(c.model_names)) set("model_names", "modelNames", c.model_names);
  let metadataMerge: Record<string, unknown> | undefined;
  if (p === "VERTEX_AI" && sent.length > 0) {
    // Per-scalar deep merge: each omitted field keeps its stored value. The catalog merges
    // the sent ones into what is stored when the update lands, not into what was read here.
    metadataMerge = { kind: "GCP" };
    for (const k of ["project_id", "location", "project_access_label"] as const)
      if (typeof c[k] === "string") metadataMerge[k] = c[k];
  }
  if (c.auth) {
    const auth = authParts(p, c.auth);
    set("auth_type", "authType", auth.authType);
    setOptional(
      "provider_metadata",
      "providerMetadataJson",
      auth.meta ? JSON.stringify(auth.meta) : undefined,
    );
    // A new auth brings its own secret; one without (DEFAULT without api_key, a proxy) clears it,
    // so a client secret never turns into an API key.
    fields.add("api_key");
    apiKey = auth.secret;
    if (p === "AWS_BEDROCK") setOptional("base_url", "baseUrl", auth.baseUrl);
    if (auth.headers !== undefined || auth.authType !== "PROXY_WITH_HEADERS")
      if (p === "AWS_BEDROCK")
        setOptional(
          "headers",
          "headersJson",
          auth.headers ? JSON.stringify(auth.headers) : undefined,
        );
  }
  requireModelSource(p, next);
  return {
    fields: [...fields],
    config: next,
    apiKey,
    metadataMerge,
    requireModelSource: NEEDS_MODEL_SOURCE.has(p),
  };
}
