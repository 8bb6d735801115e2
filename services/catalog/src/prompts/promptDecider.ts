import type { Decider } from "@argus/eventstore";
import type { PromptEvent, PromptVersionContent, PromptVersionCreated } from "@argus/contracts";
import { DomainError, requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import { checkedContent, commitHash, labelMoves, requireLabels } from "./promptRules.ts";
import { DESCRIPTION_MAX, requireCatalogName, requireMaxLength } from "../shared/catalogRules.ts";

/**
 * Versions are immutable and go only with their prompt, so the state keeps none: a label
 * command names a version its handler found in the projection under this prompt.
 */
export type PromptState = Lifecycle<{
  id: string;
  spaceId: string;
  /** label → version id; a label names at most one version of a prompt. */
  labels: Readonly<Record<string, string>>;
}>;

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
  | { type: "UpdatePrompt"; description: string | null; now: Date }
  | { type: "DeletePrompt"; now: Date }
  | (Actor & { type: "CreatePromptVersion"; versionId: string; version: PromptVersionContent })
  | { type: "SetPromptVersionLabels"; versionId: string; labels: string[]; now: Date }
  | { type: "DeletePromptVersionLabel"; versionId: string; label: string; now: Date };

function versionCreated(
  ids: { id: string; spaceId: string },
  versionId: string,
  content: PromptVersionContent,
  actor: Actor,
): PromptVersionCreated {
  const checked = checkedContent(content);
  return {
    type: "PromptVersionCreated",
    data: {
      id: versionId,
      prompt_id: ids.id,
      space_id: ids.spaceId,
      commit_hash: commitHash(versionId, checked),
      ...checked,
      created_by_user_id: actor.userId,
      created_at: actor.now.toISOString(),
    },
  };
}

function decide(command: PromptCommand, state: PromptState): PromptEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreatePrompt": {
      requireNew(state, "prompt");
      requireCatalogName(command.name);
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      const { id, accountId, spaceId, name, description, userId } = command;
      return [
        {
          type: "PromptCreated",
          data: {
            id,
            account_id: accountId,
            space_id: spaceId,
            name,
            description,
            created_by_user_id: userId,
            created_at: at,
          },
        },
        versionCreated({ id, spaceId }, command.versionId, command.version, command),
      ];
    }
    case "UpdatePrompt": {
      requireLive(state, "prompt");
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      const { id, spaceId } = state;
      const data = { id, space_id: spaceId, description: command.description, updated_at: at };
      return [{ type: "PromptUpdated", data }];
    }
    case "DeletePrompt":
      requireLive(state, "prompt");
      return [
        { type: "PromptDeleted", data: { id: state.id, space_id: state.spaceId, deleted_at: at } },
      ];
    case "CreatePromptVersion":
      requireLive(state, "prompt");
      return [versionCreated(state, command.versionId, command.version, command)];
    case "SetPromptVersionLabels": {
      requireLive(state, "prompt");
      requireLabels(command.labels);
      const on = { prompt_id: state.id, space_id: state.spaceId, version_id: command.versionId };
      return labelMoves(state.labels, on, command.labels, at);
    }
    case "DeletePromptVersionLabel": {
      requireLive(state, "prompt");
      const { versionId: version_id, label } = command;
      if (state.labels[label] !== version_id)
        throw new DomainError("resource-not-found", "label not found on this prompt version");
      const on = { prompt_id: state.id, space_id: state.spaceId, version_id };
      return [{ type: "PromptLabelDeleted", data: { ...on, label, deleted_at: at } }];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: PromptState, event: PromptEvent): PromptState {
  if (event.type === "PromptCreated") {
    const { id, space_id } = event.data;
    return { status: "live", id, spaceId: space_id, labels: {} };
  }
  if (event.type === "PromptDeleted") return { status: "deleted" };
  if (state.status !== "live") return state;
  switch (event.type) {
    case "PromptVersionCreated":
    case "PromptUpdated":
      return state;
    case "PromptLabelSet":
      return { ...state, labels: { ...state.labels, [event.data.label]: event.data.version_id } };
    case "PromptLabelDeleted": {
      const labels = { ...state.labels };
      delete labels[event.data.label];
      return { ...state, labels };
    }
    default:
      return unreachable(event);
  }
}

/** A prompt with its immutable versions and movable labels: one stream, one decider. */
export const promptDecider: Decider<PromptState, PromptCommand, PromptEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
  // Every version is an event of the stream.
  snapshots: { tag: "prompt/1", every: 50 },
};
