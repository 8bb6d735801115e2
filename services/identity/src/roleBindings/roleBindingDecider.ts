import type { Decider } from "@argus/eventstore";
import type { BindingResourceType, RoleBindingEvent, SubjectType } from "@argus/contracts";
import { DomainError, notFound, unreachable, type Lifecycle } from "@argus/platform";

export interface BoundBinding {
  id: string;
  roleId: string;
  subjectType: SubjectType;
  subjectId: string;
}

export type RoleBindingState = Lifecycle<BoundBinding>;

/** What the command's transaction found of the things a binding points at. */
export interface BindingTargets {
  role: boolean;
  subject: boolean;
  resource: boolean;
}

export type RoleBindingCommand =
  | {
      type: "CreateRoleBinding";
      id: string;
      accountId: string;
      roleId: string;
      subjectType: SubjectType;
      subjectId: string;
      resourceType: BindingResourceType;
      resourceId: string;
      found: BindingTargets;
      now: Date;
    }
  /**
   * `granted`: a binding a SERVICE key made with its service account (ServiceAccountRoleGranted
   * on the service account's stream), as projected: its own stream holds no RoleBindingCreated.
   */
  | {
      type: "UpdateRoleBinding";
      roleId: string;
      roleFound: boolean;
      granted?: BoundBinding;
      now: Date;
    }
  | { type: "DeleteRoleBinding"; granted?: BoundBinding };

const RESOURCE_LABEL = { SPACE: "space", ORGANIZATION: "organization", PROJECT: "project" };

function decide(command: RoleBindingCommand, state: RoleBindingState): RoleBindingEvent[] {
  if (command.type === "CreateRoleBinding") {
    if (state.status !== "none")
      throw new DomainError("resource-conflict", "role binding already exists");
    // The public API answers 403 for a resource that is not there, as for one not the caller's.
    if (!command.found.resource)
      throw new DomainError(
        "access-forbidden",
        `creating this role binding requires ROLE_BINDING_CREATE on an existing ${RESOURCE_LABEL[command.resourceType]} of the account`,
      );
    if (!command.found.role) throw notFound("role");
    if (!command.found.subject)
      throw notFound(command.subjectType === "USER" ? "user" : "service account");
    const { id, accountId, roleId, subjectType, subjectId, resourceType, resourceId } = command;
    return [
      {
        type: "RoleBindingCreated",
        data: {
          id,
          account_id: accountId,
          role_id: roleId,
          subject_type: subjectType,
          subject_id: subjectId,
          resource_type: resourceType,
          resource_id: resourceId,
          created_at: command.now.toISOString(),
        },
      },
    ];
  }
  const binding =
    state.status === "live" ? state : state.status === "none" ? command.granted : undefined;
  if (!binding) throw notFound("role binding");
  switch (command.type) {
    case "UpdateRoleBinding": {
      if (!command.roleFound) throw notFound("role");
      // Binding the same role again is a no-op.
      if (command.roleId === binding.roleId) return [];
      const data = {
        id: binding.id,
        role_id: command.roleId,
        updated_at: command.now.toISOString(),
      };
      return [{ type: "RoleBindingUpdated", data }];
    }
    case "DeleteRoleBinding": {
      const { id, subjectType, subjectId } = binding;
      return [
        {
          type: "RoleBindingDeleted",
          data: { id, subject_type: subjectType, subject_id: subjectId },
        },
      ];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: RoleBindingState, event: RoleBindingEvent): RoleBindingState {
  switch (event.type) {
    case "RoleBindingCreated": {
      const d = event.data;
      return {
        status: "live",
        id: d.id,
        roleId: d.role_id,
        subjectType: d.subject_type,
        subjectId: d.subject_id,
      };
    }
    case "RoleBindingUpdated":
      // A granted binding's stream starts with its first update: `granted` carries it on.
      return state.status === "live" ? { ...state, roleId: event.data.role_id } : state;
    case "RoleBindingDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** A role binding: created once (on a live role, subject and resource), rebound, deleted once. */
export const roleBindingDecider: Decider<RoleBindingState, RoleBindingCommand, RoleBindingEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
