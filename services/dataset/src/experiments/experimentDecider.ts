import type { Decider } from "@argus/eventstore";
import { LIMITS, type ExperimentEvent } from "@argus/contracts";
import { DomainError, unreachable, type Lifecycle, notFound } from "@argus/platform";
import { requireName } from "../datasets/datasetDecider.ts";
import { invalid } from "../shared/problemRules.ts";

export type ExperimentState = Lifecycle<{ id: string; accountId: string; spaceId: string }>;

export type ExperimentCommand =
  | {
      type: "CreateExperiment";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      dataset: { id: string; versionId: string } | null;
      integrationId?: string;
      now: Date;
    }
  | { type: "DeleteExperiment"; now: Date };

/** The public API: 1–255 characters, no double quote or backslash. */
function requireExperimentName(name: string): void {
  requireName("name", name, LIMITS.EXPERIMENT_NAME_MAX);
  if (/["\\]/.test(name)) throw invalid("name must not contain a double quote or a backslash");
}

function decide(command: ExperimentCommand, state: ExperimentState): ExperimentEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateExperiment": {
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "experiment already exists");
      requireExperimentName(command.name);
      const { id, accountId, spaceId, name, dataset, integrationId } = command;
      return [
        {
          type: "ExperimentCreated",
          data: {
            id,
            account_id: accountId,
            space_id: spaceId,
            name,
            dataset_id: dataset?.id ?? null,
            dataset_version_id: dataset?.versionId ?? null,
            ...(integrationId ? { integration_id: integrationId } : {}),
            created_at: at,
          },
        },
      ];
    }
    case "DeleteExperiment":
      if (state.status !== "live") throw notFound("experiment");
      return [
        {
          type: "ExperimentDeleted",
          data: {
            id: state.id,
            account_id: state.accountId,
            space_id: state.spaceId,
            deleted_at: at,
          },
        },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(state: ExperimentState, event: ExperimentEvent): ExperimentState {
  switch (event.type) {
    case "ExperimentCreated":
      return {
        status: "live",
        id: event.data.id,
        accountId: event.data.account_id,
        spaceId: event.data.space_id,
      };
    case "ExperimentDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An experiment: created once (with a dataset or in a space), deleted once. Runs: experimentRunRules.ts. */
export const experimentDecider: Decider<ExperimentState, ExperimentCommand, ExperimentEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
