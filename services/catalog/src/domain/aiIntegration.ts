import { DomainError } from "@argus/platform";
import { requireCatalogName, requireMaxLength } from "./catalogRules.ts";

export const PROVIDERS = [
  "OPEN_AI",
  "AZURE_OPEN_AI",
  "AWS_BEDROCK",
  "VERTEX_AI",
  "ANTHROPIC",
  "CUSTOM",
  "NVIDIA_NIM",
  "GEMINI",
] as const;
export const AUTH_TYPES = ["DEFAULT", "PROXY_WITH_HEADERS", "BEARER_TOKEN"] as const;
export const HEADERS_MAX_BYTES = 8175;
export const API_KEY_MAX = 4096;

export type Scoping = { organization_id: string | null; space_id: string | null };

export type AiIntegrationConfig = {
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
};

/** What events say about the key: whether one is set and its redacted hint, never the key. */
export type KeyFacts = { has_api_key: boolean; api_key_hint: string };

export type AiIntegrationEvent =
  | {
      type: "AiIntegrationCreated";
      data: AiIntegrationConfig &
        KeyFacts & {
          id: string;
          account_id: string;
          created_by_user_id: string;
          created_at: string;
        };
    }
  | {
      type: "AiIntegrationUpdated";
      data: AiIntegrationConfig & KeyFacts & { id: string; updated_at: string };
    }
  | { type: "AiIntegrationDeleted"; data: { id: string; deleted_at: string } };

export type AiIntegrationState = {
  exists: boolean;
  deleted: boolean;
  id: string;
  config: AiIntegrationConfig | null;
  key: KeyFacts;
};

export const initialAiIntegrationState: AiIntegrationState = {
  exists: false,
  deleted: false,
  id: "",
  config: null,
  key: { has_api_key: false, api_key_hint: "" },
};

export type AiIntegrationCommand =
  | {
      type: "CreateAiIntegration";
      id: string;
      accountId: string;
      config: AiIntegrationConfig;
      apiKey: string | null;
      userId: string;
      now: Date;
    }
  | {
      type: "UpdateAiIntegration";
      changes: Partial<AiIntegrationConfig>;
      /** undefined: unchanged; null: removed. */
      apiKey: string | null | undefined;
      now: Date;
    }
  | { type: "DeleteAiIntegration"; now: Date };

const invalid = (detail: string) => new DomainError("invalid-request", detail);

/** "…abcd" for keys long enough that four characters reveal nothing useful; "…" otherwise. */
export function keyHint(apiKey: string): string {
  return apiKey.length >= 12 ? `…${apiKey.slice(-4)}` : "…";
}

function keyFacts(apiKey: string | null): KeyFacts {
  if (apiKey === null) return { has_api_key: false, api_key_hint: "" };
  if (apiKey.trim() === "") throw invalid("api_key must not be empty");
  requireMaxLength("api_key", apiKey, API_KEY_MAX);
  return { has_api_key: true, api_key_hint: keyHint(apiKey) };
}

function checkConfig(c: AiIntegrationConfig): void {
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
  if (c.provider === "AWS_BEDROCK" && (typeof m?.role_arn !== "string" || m.role_arn === ""))
    throw invalid("AWS_BEDROCK needs provider_metadata with role_arn");
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

function requireLive(state: AiIntegrationState): asserts state is AiIntegrationState & {
  config: AiIntegrationConfig;
} {
  if (!state.exists || state.deleted || !state.config)
    throw new DomainError("resource-not-found", "AI integration not found");
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decideAiIntegration(
  command: AiIntegrationCommand,
  state: AiIntegrationState,
): AiIntegrationEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateAiIntegration": {
      if (state.exists) throw new DomainError("resource-conflict", "AI integration already exists");
      checkConfig(command.config);
      return [
        {
          type: "AiIntegrationCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            ...command.config,
            ...keyFacts(command.apiKey),
            created_by_user_id: command.userId,
            created_at: at,
          },
        },
      ];
    }
    case "UpdateAiIntegration": {
      requireLive(state);
      if (Object.keys(command.changes).length === 0 && command.apiKey === undefined)
        throw invalid("at least one field must be provided");
      const config = { ...state.config, ...command.changes };
      checkConfig(config);
      const key = command.apiKey === undefined ? state.key : keyFacts(command.apiKey);
      return [
        { type: "AiIntegrationUpdated", data: { id: state.id, ...config, ...key, updated_at: at } },
      ];
    }
    case "DeleteAiIntegration":
      requireLive(state);
      return [{ type: "AiIntegrationDeleted", data: { id: state.id, deleted_at: at } }];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String((never as { type: string }).type)}`);
    }
  }
}

const configOf = (d: AiIntegrationConfig): AiIntegrationConfig => ({
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

export function evolveAiIntegration(
  state: AiIntegrationState,
  event: AiIntegrationEvent,
): AiIntegrationState {
  switch (event.type) {
    case "AiIntegrationCreated":
    case "AiIntegrationUpdated": {
      const d = event.data;
      return {
        ...state,
        exists: true,
        id: d.id,
        config: configOf(d),
        key: { has_api_key: d.has_api_key, api_key_hint: d.api_key_hint },
      };
    }
    case "AiIntegrationDeleted":
      return { ...state, deleted: true };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${String((never as { type: string }).type)}`);
    }
  }
}

export function aiIntegrationStateOf(events: readonly AiIntegrationEvent[]): AiIntegrationState {
  return events.reduce(evolveAiIntegration, initialAiIntegrationState);
}
