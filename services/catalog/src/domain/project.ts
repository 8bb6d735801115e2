import { DomainError } from "@argus/platform";

export const PROJECT_NAME_MAX = 255;

export interface ProjectCreated {
  type: "ProjectCreated";
  data: {
    id: string;
    account_id: string;
    space_id: string;
    name: string;
    created_at: string;
  };
}

export interface ProjectUpdated {
  type: "ProjectUpdated";
  data: { id: string; space_id: string; name: string; updated_at: string };
}

export interface ProjectDeleted {
  type: "ProjectDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type ProjectEvent = ProjectCreated | ProjectUpdated | ProjectDeleted;

export interface ProjectState {
  exists: boolean;
  spaceId: string;
}

export const initialProjectState: ProjectState = { exists: false, spaceId: "" };

export interface CreateProject {
  type: "CreateProject";
  id: string;
  accountId: string;
  spaceId: string;
  name: string;
  now: Date;
}

export interface UpdateProject {
  type: "UpdateProject";
  id: string;
  name: string;
  now: Date;
}

export interface DeleteProject {
  type: "DeleteProject";
  id: string;
  now: Date;
}

export type ProjectCommand = CreateProject | UpdateProject | DeleteProject;

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
const length = (s: string): number => [...s].length;

function requireName(name: string): string {
  if (name.trim() === "") throw new DomainError("invalid-request", "name must not be empty");
  if (length(name) > PROJECT_NAME_MAX)
    throw new DomainError("invalid-request", `name must be at most ${PROJECT_NAME_MAX} characters`);
  return name;
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decideProject(command: ProjectCommand, state: ProjectState): ProjectEvent[] {
  switch (command.type) {
    case "CreateProject": {
      if (state.exists) throw new DomainError("resource-conflict", "project already exists");
      return [
        {
          type: "ProjectCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            space_id: command.spaceId,
            name: requireName(command.name),
            created_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "UpdateProject": {
      if (!state.exists) throw new DomainError("resource-not-found", "project not found");
      return [
        {
          type: "ProjectUpdated",
          data: {
            id: command.id,
            space_id: state.spaceId,
            name: requireName(command.name),
            updated_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "DeleteProject": {
      if (!state.exists) throw new DomainError("resource-not-found", "project not found");
      return [
        {
          type: "ProjectDeleted",
          data: { id: command.id, space_id: state.spaceId, deleted_at: command.now.toISOString() },
        },
      ];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}
