import { createHash } from "node:crypto";
import type { Decider } from "@argus/eventstore";
import type { EvaluatorEvent, EvaluatorVersionCreated } from "@argus/contracts";
import { DomainError, requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import {
  checkedConfig,
  requireCreatableType,
  type EvaluatorVersionContent,
} from "./evaluatorConfigRules.ts";
import {
  DESCRIPTION_MAX,
  invalid,
  requireCatalogName,
  requireMaxLength,
} from "../shared/catalogRules.ts";

export type EvaluatorState = Lifecycle<{
  id: string;
  spaceId: string;
  type: string;
  name: string;
  description: string | null;
  /** The ids of its versions not deleted, oldest first. */
  versions: readonly string[];
}>;

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
  | {
      type: "UpdateEvaluator";
      name: string | undefined;
      /** undefined: unchanged; null: cleared. */
      description: string | null | undefined;
      now: Date;
    }
  | { type: "DeleteEvaluator"; now: Date }
  | (Actor & {
      type: "CreateEvaluatorVersion";
      versionId: string;
      version: EvaluatorVersionContent;
    })
  | {
      type: "DeleteEvaluatorVersions";
      /** As requested: duplicates and ids of no version of this evaluator allowed. */
      versionIds: readonly string[];
      now: Date;
    };

/** At most this many version ids per DeleteEvaluatorVersions. */
const DELETE_VERSIONS_MAX = 100;

function versionCreated(
  of: { id: string; spaceId: string; type: string },
  versionId: string,
  v: EvaluatorVersionContent,
  actor: Actor,
): EvaluatorVersionCreated {
  const config = checkedConfig(of.type, v);
  const hash = createHash("sha256").update(JSON.stringify([versionId, v.commit_message, config]));
  return {
    type: "EvaluatorVersionCreated",
    data: {
      id: versionId,
      evaluator_id: of.id,
      space_id: of.spaceId,
      evaluator_type: of.type,
      commit_hash: hash.digest("hex").slice(0, 40),
      commit_message: v.commit_message,
      config,
      created_by_user_id: actor.userId,
      created_at: actor.now.toISOString(),
    },
  };
}

function decide(command: EvaluatorCommand, state: EvaluatorState): EvaluatorEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateEvaluator": {
      requireNew(state, "evaluator");
      requireCatalogName(command.name);
      requireMaxLength("description", command.description, DESCRIPTION_MAX);
      requireCreatableType(command.evaluatorType);
      const { id, spaceId, evaluatorType: type } = command;
      return [
        {
          type: "EvaluatorCreated",
          data: {
            id,
            account_id: command.accountId,
            space_id: spaceId,
            name: command.name,
            description: command.description,
            evaluator_type: type,
            created_by_user_id: command.userId,
            created_at: at,
          },
        },
        versionCreated({ id, spaceId, type }, command.versionId, command.version, command),
      ];
    }
    case "UpdateEvaluator": {
      requireLive(state, "evaluator");
      if (command.name === undefined && command.description === undefined)
        throw invalid("at least one of name or description is required");
      const name = command.name ?? state.name;
      const description =
        command.description === undefined ? state.description : command.description;
      requireCatalogName(name);
      requireMaxLength("description", description, DESCRIPTION_MAX);
      const data = { id: state.id, space_id: state.spaceId, name, description, updated_at: at };
      return [{ type: "EvaluatorUpdated", data }];
    }
    case "DeleteEvaluator":
      requireLive(state, "evaluator");
      return [
        {
          type: "EvaluatorDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    case "CreateEvaluatorVersion":
      requireLive(state, "evaluator");
      return [versionCreated(state, command.versionId, command.version, command)];
    case "DeleteEvaluatorVersions": {
      requireLive(state, "evaluator");
      const requested = new Set(command.versionIds);
      if (requested.size === 0)
        throw invalid("version_ids must contain at least one evaluator version ID");
      if (command.versionIds.length > DELETE_VERSIONS_MAX)
        throw invalid(
          `version_ids cannot contain more than ${DELETE_VERSIONS_MAX} evaluator version IDs`,
        );
      const doomed = state.versions.filter((v) => requested.has(v));
      if (doomed.length === 0) return [];
      // An evaluator always resolves a latest version (GET answers EvaluatorWithVersion).
      if (doomed.length === state.versions.length)
        throw new DomainError(
          "resource-conflict",
          "an evaluator keeps at least one version: this request would delete every remaining version; delete the evaluator instead",
        );
      return [
        {
          type: "EvaluatorVersionsDeleted",
          data: {
            evaluator_id: state.id,
            space_id: state.spaceId,
            version_ids: doomed,
            deleted_at: at,
          },
        },
      ];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: EvaluatorState, event: EvaluatorEvent): EvaluatorState {
  switch (event.type) {
    case "EvaluatorCreated": {
      const d = event.data;
      const { id, name, description } = d;
      const spaceId = d.space_id;
      return {
        status: "live",
        id,
        spaceId,
        type: d.evaluator_type,
        name,
        description,
        versions: [],
      };
    }
    case "EvaluatorVersionCreated":
      if (state.status !== "live") return state;
      return { ...state, versions: [...state.versions, event.data.id] };
    case "EvaluatorVersionsDeleted": {
      if (state.status !== "live") return state;
      const gone = new Set(event.data.version_ids);
      return { ...state, versions: state.versions.filter((v) => !gone.has(v)) };
    }
    case "EvaluatorUpdated":
      if (state.status !== "live") return state;
      return { ...state, name: event.data.name, description: event.data.description };
    case "EvaluatorDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An evaluator with its append-only versions, each checked against the evaluator's type. */
export const evaluatorDecider: Decider<EvaluatorState, EvaluatorCommand, EvaluatorEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
  // Every version is an event of the stream.
  snapshots: { tag: "evaluator/1", every: 50 },
};
