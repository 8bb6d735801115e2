import { createHash } from "node:crypto";
import { DomainError } from "@argus/platform";
import { DESCRIPTION_MAX, requireCatalogName, requireMaxLength } from "./catalogRules.ts";

export const EVALUATOR_TYPES_CREATABLE = ["TEMPLATE", "CODE"] as const;
export const COMMIT_MESSAGE_MAX = 1000;
const EVAL_COLUMN_NAME = /^[a-zA-Z0-9_\s\-&()]+$/;

/** A version as the caller wrote it: which config it carries and that config, parsed. */
export type EvaluatorVersionContent = {
  commit_message: string;
  config_kind: string;
  config: Record<string, unknown>;
};

export type EvaluatorEvent =
  | {
      type: "EvaluatorCreated";
      data: {
        id: string;
        account_id: string;
        space_id: string;
        name: string;
        description: string | null;
        evaluator_type: string;
        created_by_user_id: string;
        created_at: string;
      };
    }
  | {
      type: "EvaluatorVersionCreated";
      data: {
        id: string;
        evaluator_id: string;
        space_id: string;
        evaluator_type: string;
        commit_hash: string;
        commit_message: string;
        config: Record<string, unknown>;
        created_by_user_id: string;
        created_at: string;
      };
    }
  | {
      type: "EvaluatorUpdated";
      data: {
        id: string;
        space_id: string;
        name: string;
        description: string | null;
        updated_at: string;
      };
    }
  | { type: "EvaluatorDeleted"; data: { id: string; space_id: string; deleted_at: string } };

export interface EvaluatorState {
  exists: boolean;
  deleted: boolean;
  id: string;
  spaceId: string;
  type: string;
  name: string;
  description: string | null;
}

export const initialEvaluatorState: EvaluatorState = {
  exists: false,
  deleted: false,
  id: "",
  spaceId: "",
  type: "",
  name: "",
  description: null,
};

interface Actor {
  userId: string;
  now: Date;
}

export type EvaluatorCommand =
  | (Actor & {
      type: "CreateEvaluator";
      id: string;
      versionId: string;
      accountId: string;
      spaceId: string;
      name: string;
      description: string | null;
      evaluatorType: string;
      version: EvaluatorVersionContent;
    })
  | (Actor & {
      type: "UpdateEvaluator";
      name: string | undefined;
      /** undefined: unchanged; null: cleared. */
      description: string | null | undefined;
    })
  | (Actor & { type: "DeleteEvaluator" })
  | (Actor & {
      type: "CreateEvaluatorVersion";
      versionId: string;
      version: EvaluatorVersionContent;
    });

const invalid = (detail: string) => new DomainError("invalid-request", detail);

/** The config with the defaults the public API documents filled in, or the rule it breaks. */
export function checkedConfig(evaluatorType: string, v: EvaluatorVersionContent) {
  if (v.config_kind !== evaluatorType)
    throw invalid(
      evaluatorType === "TEMPLATE"
        ? "a TEMPLATE evaluator's version needs template_config"
        : "a CODE evaluator's version needs code_config",
    );
  requireMaxLength("commit_message", v.commit_message, COMMIT_MESSAGE_MAX);
  const c = v.config;
  if (typeof c.name !== "string" || !EVAL_COLUMN_NAME.test(c.name))
    throw invalid("the config name must match ^[a-zA-Z0-9_\\s\\-&()]+$");
  if (evaluatorType === "TEMPLATE") {
    if (typeof c.template !== "string" || c.template.trim() === "")
      throw invalid("template_config.template must not be empty");
    const choices = c.classification_choices;
    if (typeof choices !== "object" || choices === null || Object.keys(choices).length === 0)
      throw invalid("template_config.classification_choices needs at least one choice");
    return {
      use_structured_output: true,
      direction: "MAXIMIZE",
      data_granularity: "SPAN",
      ...c,
    };
  }
  if (c.type === "MANAGED" && typeof c.managed_evaluator !== "string")
    throw invalid("a MANAGED code_config needs managed_evaluator");
  if (c.type === "CUSTOM" && (typeof c.code !== "string" || c.code.trim() === ""))
    throw invalid("a CUSTOM code_config needs code");
  if (c.type !== "MANAGED" && c.type !== "CUSTOM")
    throw invalid("code_config.type must be MANAGED or CUSTOM");
  return c;
}

function versionCreated(
  state: Pick<EvaluatorState, "id" | "spaceId" | "type">,
  versionId: string,
  v: EvaluatorVersionContent,
  actor: Actor,
): EvaluatorEvent {
  const config = checkedConfig(state.type, v);
  return {
    type: "EvaluatorVersionCreated",
    data: {
      id: versionId,
      evaluator_id: state.id,
      space_id: state.spaceId,
      evaluator_type: state.type,
      commit_hash: createHash("sha256")
        .update(JSON.stringify([versionId, v.commit_message, config]))
        .digest("hex")
        .slice(0, 40),
      commit_message: v.commit_message,
      config,
      created_by_user_id: actor.userId,
      created_at: actor.now.toISOString(),
    },
  };
}

function requireLive(state: EvaluatorState): void {
  if (!state.exists || state.deleted)
    throw new DomainError("resource-not-found", "evaluator not found");
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decideEvaluator(
  command: EvaluatorCommand,
  state: EvaluatorState,
): EvaluatorEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateEvaluator": {
      if (state.exists) throw new DomainError("resource-conflict", "evaluator already exists");
      requireCatalogName(command.name);
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      if (!(EVALUATOR_TYPES_CREATABLE as readonly string[]).includes(command.evaluatorType))
        throw invalid("only TEMPLATE and CODE evaluators can be created");
      const created: EvaluatorEvent = {
        type: "EvaluatorCreated",
        data: {
          id: command.id,
          account_id: command.accountId,
          space_id: command.spaceId,
          name: command.name,
          description: command.description,
          evaluator_type: command.evaluatorType,
          created_by_user_id: command.userId,
          created_at: at,
        },
      };
      const ids = { id: command.id, spaceId: command.spaceId, type: command.evaluatorType };
      return [created, versionCreated(ids, command.versionId, command.version, command)];
    }
    case "UpdateEvaluator": {
      requireLive(state);
      if (command.name === undefined && command.description === undefined)
        throw invalid("at least one of name or description is required");
      const name = command.name ?? state.name;
      const description =
        command.description === undefined ? state.description : command.description;
      requireCatalogName(name);
      requireMaxLength("description", description, DESCRIPTION_MAX);
      return [
        {
          type: "EvaluatorUpdated",
          data: { id: state.id, space_id: state.spaceId, name, description, updated_at: at },
        },
      ];
    }
    case "DeleteEvaluator":
      requireLive(state);
      return [
        {
          type: "EvaluatorDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    case "CreateEvaluatorVersion":
      requireLive(state);
      return [versionCreated(state, command.versionId, command.version, command)];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String((never as { type: string }).type)}`);
    }
  }
}

export function evolveEvaluator(state: EvaluatorState, event: EvaluatorEvent): EvaluatorState {
  switch (event.type) {
    case "EvaluatorCreated":
      return {
        ...state,
        exists: true,
        id: event.data.id,
        spaceId: event.data.space_id,
        type: event.data.evaluator_type,
        name: event.data.name,
        description: event.data.description,
      };
    case "EvaluatorVersionCreated":
      return state;
    case "EvaluatorUpdated":
      return { ...state, name: event.data.name, description: event.data.description };
    case "EvaluatorDeleted":
      return { ...state, deleted: true };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${String((never as { type: string }).type)}`);
    }
  }
}

export function evaluatorStateOf(events: readonly EvaluatorEvent[]): EvaluatorState {
  return events.reduce(evolveEvaluator, initialEvaluatorState);
}
