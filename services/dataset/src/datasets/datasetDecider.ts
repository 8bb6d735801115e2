import type { Decider } from "@argus/eventstore";
import { LIMITS, textLength, type DatasetEvent } from "@argus/contracts";
import { DomainError, unreachable, type Lifecycle, notFound } from "@argus/platform";
import { invalid } from "../shared/problemRules.ts";

/** What decisions on a dataset need: where it lives and its versions' names. */
export type DatasetState = Lifecycle<{
  id: string;
  accountId: string;
  spaceId: string;
}>;

export type DatasetCommand =
  | {
      type: "CreateDataset";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      firstVersion: { id: string; name: string };
      now: Date;
    }
  | { type: "RenameDataset"; name: string; now: Date }
  | { type: "DeleteDataset"; now: Date }
  | { type: "CreateVersion"; id: string; name: string; parentId: string; now: Date };

/** Lengths count code points as sent; trimming only decides whether a name is blank. */
export function requireName(label: string, name: string, max: number): void {
  if (name.trim().length === 0) throw invalid(`${label} must not be empty`);
  if (textLength(name) > max) throw invalid(`${label} must be at most ${max} characters`);
}

function requireLive(
  state: DatasetState,
): asserts state is Extract<DatasetState, { status: "live" }> {
  if (state.status !== "live") throw notFound("dataset");
}

function decide(command: DatasetCommand, state: DatasetState): DatasetEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateDataset": {
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "dataset already exists");
      requireName("name", command.name, LIMITS.DATASET_NAME_MAX);
      const { id, accountId, spaceId, name, firstVersion } = command;
      return [
        {
          type: "DatasetCreated",
          data: { id, account_id: accountId, space_id: spaceId, name, created_at: at },
        },
        {
          type: "DatasetVersionCreated",
          data: {
            id: firstVersion.id,
            dataset_id: id,
            space_id: spaceId,
            name: firstVersion.name,
            parent_version_id: null,
            created_at: at,
          },
        },
      ];
    }
    case "RenameDataset":
      requireLive(state);
      requireName("name", command.name, LIMITS.DATASET_NAME_MAX);
      return [
        {
          type: "DatasetRenamed",
          data: { id: state.id, space_id: state.spaceId, name: command.name, updated_at: at },
        },
      ];
    case "DeleteDataset":
      requireLive(state);
      return [
        {
          type: "DatasetDeleted",
          data: {
            id: state.id,
            account_id: state.accountId,
            space_id: state.spaceId,
            deleted_at: at,
          },
        },
      ];
    case "CreateVersion":
      requireLive(state);
      // A name taken in the dataset is refused by the projection's unique index
      // (dataset_versions_name_per_dataset), in this command's transaction: a 409.
      requireName("new_version", command.name, LIMITS.DATASET_VERSION_NAME_MAX);
      return [
        {
          type: "DatasetVersionCreated",
          data: {
            id: command.id,
            dataset_id: state.id,
            space_id: state.spaceId,
            name: command.name,
            parent_version_id: command.parentId,
            created_at: at,
          },
        },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(state: DatasetState, event: DatasetEvent): DatasetState {
  switch (event.type) {
    case "DatasetCreated":
      return {
        status: "live",
        id: event.data.id,
        accountId: event.data.account_id,
        spaceId: event.data.space_id,
      };
    case "DatasetRenamed":
      return state;
    case "DatasetDeleted":
      return { status: "deleted" };
    case "DatasetVersionCreated":
      return state;
    default:
      return unreachable(event);
  }
}

/**
 * A dataset: created once with its first version, renamed and given versions while live,
 * deleted once. Its examples are not folded here (examples/exampleCommands.ts).
 */
export const datasetDecider: Decider<DatasetState, DatasetCommand, DatasetEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
  // Every new version is an event of the stream.
  snapshots: { tag: "dataset/1", every: 50 },
};
