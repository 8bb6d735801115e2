import type { SpaceSettings } from "./identity.ts";

/**
 * The keys of SpaceSettings, in the one order the gateway takes them from a body and identity
 * stores them in (so that equal settings compare equal as JSON).
 */
export const SPACE_SETTING_KEYS = [
  "ml_models_enabled",
  "gradient_start_color",
  "gradient_end_color",
  "default_llm_integration",
  "default_agent_runtime",
] as const satisfies readonly (keyof SpaceSettings)[];
