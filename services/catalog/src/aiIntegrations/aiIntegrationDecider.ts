import { requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import type { Decider } from "@argus/eventstore";
import type {
  AiIntegrationConfig,
  AiIntegrationEvent,
  AiIntegrationKeyFacts,
} from "@argus/contracts";
import { checkConfig, configOf, keyFacts } from "./aiIntegrationConfigRules.ts";
import { invalid, unprocessable } from "../shared/catalogRules.ts";

export type AiIntegrationState = Lifecycle<{
  id: string;
  config: AiIntegrationConfig;
  key: AiIntegrationKeyFacts;
}>;

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
      /** Merged key by key into the stored provider_metadata (after `changes`). */
      metadataMerge?: Record<string, unknown>;
      /** The integration as updated must keep default models or model names (422). */
      requireModelSource?: boolean;
      now: Date;
    }
  | { type: "DeleteAiIntegration"; now: Date }
  /**
   * A deleted space leaves the integration's scopings: it keeps the others, or is deleted when
   * none remain (no scoping means account-wide, and a cascade must never widen access).
   */
  | { type: "RemoveSpaceScopings"; spaceId: string; now: Date };

function decide(command: AiIntegrationCommand, state: AiIntegrationState): AiIntegrationEvent[] {
  const at = command.now.toISOString();
  if (command.type === "CreateAiIntegration") {
    requireNew(state, "AI integration");
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
  requireLive(state, "AI integration");
  const deleted: AiIntegrationEvent = {
    type: "AiIntegrationDeleted",
    data: { id: state.id, deleted_at: at },
  };
  switch (command.type) {
    case "UpdateAiIntegration": {
      const { changes, metadataMerge } = command;
      if (Object.keys(changes).length === 0 && command.apiKey === undefined && !metadataMerge)
        throw invalid("at least one field must be provided");
      const config = { ...state.config, ...changes };
      if (metadataMerge)
        config.provider_metadata = { ...(config.provider_metadata ?? {}), ...metadataMerge };
      if (command.requireModelSource && !config.enable_default_models && !config.model_names.length)
        throw unprocessable(
          `a ${config.provider} integration needs a model source: is_default_models_enabled or model_names`,
        );
      checkConfig(config);
      const key = command.apiKey === undefined ? state.key : keyFacts(command.apiKey);
      const data = { id: state.id, ...config, ...key, updated_at: at };
      return [{ type: "AiIntegrationUpdated", data }];
    }
    case "DeleteAiIntegration":
      return [deleted];
    case "RemoveSpaceScopings": {
      const scopings = state.config.scopings.filter((s) => s.space_id !== command.spaceId);
      if (scopings.length === state.config.scopings.length) return [];
      if (scopings.length === 0) return [deleted];
      const data = { id: state.id, ...state.config, scopings, ...state.key, updated_at: at };
      return [{ type: "AiIntegrationUpdated", data }];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: AiIntegrationState, event: AiIntegrationEvent): AiIntegrationState {
  switch (event.type) {
    case "AiIntegrationCreated":
    case "AiIntegrationUpdated": {
      // An update carries the whole config, as a creation does; nothing revives a deleted one.
      if (event.type === "AiIntegrationUpdated" && state.status !== "live") return state;
      const d = event.data;
      const key = { has_api_key: d.has_api_key, api_key_hint: d.api_key_hint };
      return { status: "live", id: d.id, config: configOf(d), key };
    }
    case "AiIntegrationDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An AI integration of the account; the key itself never enters an event. */
export const aiIntegrationDecider: Decider<
  AiIntegrationState,
  AiIntegrationCommand,
  AiIntegrationEvent
> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
