import { requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import type { Decider } from "@argus/eventstore";
import type { ProjectEvent } from "@argus/contracts";
import { requireCatalogName } from "../shared/catalogRules.ts";

export type ProjectState = Lifecycle<{ id: string; spaceId: string }>;

export type ProjectCommand =
  | {
      type: "CreateProject";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      now: Date;
    }
  | { type: "UpdateProject"; name: string; now: Date }
  | { type: "DeleteProject"; now: Date };

function decide(command: ProjectCommand, state: ProjectState): ProjectEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateProject": {
      requireNew(state, "project");
      requireCatalogName(command.name);
      const { id, accountId, spaceId, name } = command;
      const data = { id, account_id: accountId, space_id: spaceId, name, created_at: at };
      return [{ type: "ProjectCreated", data }];
    }
    case "UpdateProject":
      requireLive(state, "project");
      requireCatalogName(command.name);
      return [
        {
          type: "ProjectUpdated",
          data: { id: state.id, space_id: state.spaceId, name: command.name, updated_at: at },
        },
      ];
    case "DeleteProject":
      requireLive(state, "project");
      return [
        { type: "ProjectDeleted", data: { id: state.id, space_id: state.spaceId, deleted_at: at } },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case "ProjectCreated":
      return { status: "live", id: event.data.id, spaceId: event.data.space_id };
    case "ProjectUpdated":
      return state;
    case "ProjectDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** A project: created once in a space, renamed while live, deleted once. */
export const projectDecider: Decider<ProjectState, ProjectCommand, ProjectEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
