import { createHash } from "node:crypto";
import { DomainError } from "@argus/platform";
import { DESCRIPTION_MAX, requireCatalogName, requireMaxLength } from "./catalogRules.ts";

export const LABEL_MAX = 255;
export const LABELS_PER_VERSION_MAX = 100;
export const COMMIT_MESSAGE_MAX = 1000;

/** A version's content as the caller wrote it (messages and params already parsed). */
export type PromptVersionContent = {
  commit_message: string;
  input_variable_format: string;
  provider: string;
  model: string;
  messages: unknown[];
  invocation_params: Record<string, unknown> | null;
  provider_params: Record<string, unknown> | null;
};

export type PromptVersionCreatedData = PromptVersionContent & {
  id: string;
  prompt_id: string;
  space_id: string;
  commit_hash: string;
  created_by_user_id: string;
  created_at: string;
};

export type PromptEvent =
  | {
      type: "PromptCreated";
      data: {
        id: string;
        account_id: string;
        space_id: string;
        name: string;
        description: string | null;
        created_by_user_id: string;
        created_at: string;
      };
    }
  | { type: "PromptVersionCreated"; data: PromptVersionCreatedData }
  | {
      type: "PromptUpdated";
      data: { id: string; space_id: string; description: string | null; updated_at: string };
    }
  | { type: "PromptDeleted"; data: { id: string; space_id: string; deleted_at: string } }
  | {
      type: "PromptLabelSet";
      data: {
        prompt_id: string;
        space_id: string;
        version_id: string;
        label: string;
        /** The version the label moved from; null when it is new on this prompt. */
        previous_version_id: string | null;
        set_at: string;
      };
    }
  | {
      type: "PromptLabelDeleted";
      data: {
        prompt_id: string;
        space_id: string;
        version_id: string;
        label: string;
        deleted_at: string;
      };
    };

export interface PromptState {
  exists: boolean;
  deleted: boolean;
  id: string;
  spaceId: string;
  versionIds: string[];
  /** label → version id; a label names at most one version of a prompt. */
  labels: Record<string, string>;
}

export const initialPromptState: PromptState = {
  exists: false,
  deleted: false,
  id: "",
  spaceId: "",
  versionIds: [],
  labels: {},
};

interface Actor {
  userId: string;
  now: Date;
}

export type PromptCommand =
  | (Actor & {
      type: "CreatePrompt";
      id: string;
      versionId: string;
      accountId: string;
      spaceId: string;
      name: string;
      description: string | null;
      version: PromptVersionContent;
    })
  | (Actor & { type: "UpdatePrompt"; description: string | null })
  | (Actor & { type: "DeletePrompt" })
  | (Actor & { type: "CreatePromptVersion"; versionId: string; version: PromptVersionContent })
  | (Actor & { type: "SetPromptVersionLabels"; versionId: string; labels: string[] })
  | (Actor & { type: "DeletePromptVersionLabel"; versionId: string; label: string });

/** Same content and id give the same hash; the id makes two identical commits distinct. */
export function commitHash(versionId: string, content: PromptVersionContent): string {
  return createHash("sha256")
    .update(JSON.stringify([versionId, content]))
    .digest("hex")
    .slice(0, 40);
}

function checkedContent(v: PromptVersionContent): PromptVersionContent {
  if (v.commit_message.trim().length === 0)
    throw new DomainError("invalid-request", "commit_message must not be empty");
  requireMaxLength("commit_message", v.commit_message, COMMIT_MESSAGE_MAX);
  if (v.messages.length === 0)
    throw new DomainError("invalid-request", "at least one message is required");
  // NONE is deprecated and means F_STRING, so the stored version says what it does.
  const format = v.input_variable_format === "" || v.input_variable_format === "NONE";
  return { ...v, input_variable_format: format ? "F_STRING" : v.input_variable_format };
}

function versionCreated(
  state: Pick<PromptState, "id" | "spaceId">,
  versionId: string,
  content: PromptVersionContent,
  actor: Actor,
): PromptEvent {
  const checked = checkedContent(content);
  return {
    type: "PromptVersionCreated",
    data: {
      id: versionId,
      prompt_id: state.id,
      space_id: state.spaceId,
      commit_hash: commitHash(versionId, checked),
      ...checked,
      created_by_user_id: actor.userId,
      created_at: actor.now.toISOString(),
    },
  };
}

function requireLabel(label: string): void {
  if (label.trim().length === 0)
    throw new DomainError("invalid-request", "a label must not be empty");
  requireMaxLength("a label", label, LABEL_MAX);
}

function requireLive(state: PromptState): void {
  if (!state.exists || state.deleted)
    throw new DomainError("resource-not-found", "prompt not found");
}

function requireVersion(state: PromptState, versionId: string): void {
  requireLive(state);
  if (!state.versionIds.includes(versionId))
    throw new DomainError("resource-not-found", "prompt version not found");
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decidePrompt(command: PromptCommand, state: PromptState): PromptEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreatePrompt": {
      if (state.exists) throw new DomainError("resource-conflict", "prompt already exists");
      requireCatalogName(command.name);
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      const created: PromptEvent = {
        type: "PromptCreated",
        data: {
          id: command.id,
          account_id: command.accountId,
          space_id: command.spaceId,
          name: command.name,
          description: command.description,
          created_by_user_id: command.userId,
          created_at: at,
        },
      };
      const ids = { id: command.id, spaceId: command.spaceId };
      return [created, versionCreated(ids, command.versionId, command.version, command)];
    }
    case "UpdatePrompt":
      requireLive(state);
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      return [
        {
          type: "PromptUpdated",
          data: {
            id: state.id,
            space_id: state.spaceId,
            description: command.description,
            updated_at: at,
          },
        },
      ];
    case "DeletePrompt":
      requireLive(state);
      return [
        { type: "PromptDeleted", data: { id: state.id, space_id: state.spaceId, deleted_at: at } },
      ];
    case "CreatePromptVersion":
      requireLive(state);
      return [versionCreated(state, command.versionId, command.version, command)];
    case "SetPromptVersionLabels": {
      requireVersion(state, command.versionId);
      if (command.labels.length > LABELS_PER_VERSION_MAX)
        throw new DomainError(
          "invalid-request",
          `at most ${LABELS_PER_VERSION_MAX} labels per version`,
        );
      command.labels.forEach(requireLabel);
      const wanted = new Set(command.labels);
      const base = { prompt_id: state.id, space_id: state.spaceId, version_id: command.versionId };
      const removed: PromptEvent[] = Object.entries(state.labels)
        .filter(([label, v]) => v === command.versionId && !wanted.has(label))
        .map(([label]) => ({
          type: "PromptLabelDeleted",
          data: { ...base, label, deleted_at: at },
        }));
      const set: PromptEvent[] = [...wanted]
        .filter((label) => state.labels[label] !== command.versionId)
        .map((label) => ({
          type: "PromptLabelSet",
          data: { ...base, label, previous_version_id: state.labels[label] ?? null, set_at: at },
        }));
      return [...removed, ...set];
    }
    case "DeletePromptVersionLabel":
      requireVersion(state, command.versionId);
      if (state.labels[command.label] !== command.versionId)
        throw new DomainError("resource-not-found", "label not found on this prompt version");
      return [
        {
          type: "PromptLabelDeleted",
          data: {
            prompt_id: state.id,
            space_id: state.spaceId,
            version_id: command.versionId,
            label: command.label,
            deleted_at: at,
          },
        },
      ];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String((never as { type: string }).type)}`);
    }
  }
}

export function evolvePrompt(state: PromptState, event: PromptEvent): PromptState {
  switch (event.type) {
    case "PromptCreated":
      return { ...state, exists: true, id: event.data.id, spaceId: event.data.space_id };
    case "PromptVersionCreated":
      return { ...state, versionIds: [...state.versionIds, event.data.id] };
    case "PromptUpdated":
      return state;
    case "PromptDeleted":
      return { ...state, deleted: true };
    case "PromptLabelSet":
      return { ...state, labels: { ...state.labels, [event.data.label]: event.data.version_id } };
    case "PromptLabelDeleted": {
      const labels = { ...state.labels };
      delete labels[event.data.label];
      return { ...state, labels };
    }
    default: {
      const never: never = event;
      throw new Error(`unknown event ${String((never as { type: string }).type)}`);
    }
  }
}

export function promptStateOf(events: readonly PromptEvent[]): PromptState {
  return events.reduce(evolvePrompt, initialPromptState);
}
