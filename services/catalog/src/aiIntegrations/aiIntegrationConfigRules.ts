import type { AiIntegrationConfig, AiIntegrationKeyFacts } from "@argus/contracts";
import { invalid, requireCatalogName, requireMaxLength } from "../shared/catalogRules.ts";

const PROVIDERS = [
  "OPEN_AI",
  "AZURE_OPEN_AI",
  "AWS_BEDROCK",
  "VERTEX_AI",
  "ANTHROPIC",
  "CUSTOM",
  "NVIDIA_NIM",
  "GEMINI",
  "LITELLM",
  "FIREWORKS",
  "TOGETHER_AI",
] as const;
const AUTH_TYPES = [
  "DEFAULT",
  "PROXY_WITH_HEADERS",
  "BEARER_TOKEN",
  "OAUTH2_CLIENT_CREDENTIALS",
] as const;
const HEADERS_MAX_BYTES = 8175;
const API_KEY_MAX = 4096;

/**
 * "…abcd" for keys long enough that four characters reveal nothing useful; "…" otherwise.
 * Characters are code points: cutting inside a surrogate pair would store a lone surrogate.
 */
export function keyHint(apiKey: string): string {
  const chars = [...apiKey];
  return chars.length >= 12 ? `…${chars.slice(-4).join("")}` : "…";
}

/** What events may say about a key (never the key), or the rule the key breaks. */
export function keyFacts(apiKey: string | null): AiIntegrationKeyFacts {
  if (apiKey === null) return { has_api_key: false, api_key_hint: "" };
  if (apiKey.trim() === "") throw invalid("api_key must not be empty");
  requireMaxLength("api_key", apiKey, API_KEY_MAX);
  return { has_api_key: true, api_key_hint: keyHint(apiKey) };
}

export function checkConfig(c: AiIntegrationConfig): void {
  requireCatalogName(c.name);
  if (!(PROVIDERS as readonly string[]).includes(c.provider))
    throw invalid(`provider must be one of ${PROVIDERS.join(", ")}`);
  if (!(AUTH_TYPES as readonly string[]).includes(c.auth_type))
    throw invalid(`auth_type must be one of ${AUTH_TYPES.join(", ")}`);
  if (c.base_url !== null && !/^https?:\/\/\S+$/.test(c.base_url))
    throw invalid("base_url must be an http(s) URL");
  if (c.headers !== null && Buffer.byteLength(JSON.stringify(c.headers)) > HEADERS_MAX_BYTES)
    throw invalid(`headers must not exceed ${HEADERS_MAX_BYTES} bytes serialized`);
  const m = c.provider_metadata;
  // Role assumption (DEFAULT) needs the role; a bearer token or a proxy does not.
  if (
    c.provider === "AWS_BEDROCK" &&
    c.auth_type === "DEFAULT" &&
    (typeof m?.role_arn !== "string" || m.role_arn === "")
  )
    throw invalid("AWS_BEDROCK with auth_type DEFAULT needs provider_metadata with role_arn");
  if (
    c.provider === "VERTEX_AI" &&
    ["project_id", "location", "project_access_label"].some(
      (k) => typeof m?.[k] !== "string" || m[k] === "",
    )
  )
    throw invalid(
      "VERTEX_AI needs provider_metadata with project_id, location and project_access_label",
    );
}

/** Only the config's own fields (an event's data carries ids, key facts and times too). */
export const configOf = (d: AiIntegrationConfig): AiIntegrationConfig => ({
  name: d.name,
  provider: d.provider,
  base_url: d.base_url,
  model_names: d.model_names,
  headers: d.headers,
  enable_default_models: d.enable_default_models,
  function_calling_enabled: d.function_calling_enabled,
  auth_type: d.auth_type,
  provider_metadata: d.provider_metadata,
  scopings: d.scopings,
});
