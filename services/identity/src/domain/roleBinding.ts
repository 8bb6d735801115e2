import { DomainError } from "@argus/platform";

export type SubjectType = "USER" | "SERVICE_ACCOUNT";
export type BindingResourceType = "ORGANIZATION" | "SPACE" | "PROJECT";

export type RoleBindingEvent =
  | {
      type: "RoleBindingCreated";
      data: {
        id: string;
        account_id: string;
        role_id: string;
        subject_type: SubjectType;
        subject_id: string;
        resource_type: BindingResourceType;
        resource_id: string;
        created_at: string;
      };
    }
  | { type: "RoleBindingUpdated"; data: { id: string; role_id: string; updated_at: string } }
  | {
      type: "RoleBindingDeleted";
      data: { id: string; subject_type: SubjectType; subject_id: string };
    };

export interface RoleBindingState {
  id: string;
  roleId: string;
  subjectType: SubjectType;
  subjectId: string;
}

/**
 * Pure. Who may bind is decided by the handler (ROLE_BINDING_CREATE on the resource); the
 * role and subject must exist in the caller's account, which the handler has loaded.
 */
export function decideCreateRoleBinding(c: {
  id: string;
  accountId: string;
  roleId: string;
  subjectType: SubjectType;
  subjectId: string;
  resourceType: BindingResourceType;
  resourceId: string;
  subjectActive: boolean;
  now: Date;
}): RoleBindingEvent[] {
  if (!c.subjectActive)
    throw new DomainError("unprocessable-entity", "the subject was deleted and cannot be bound");
  return [
    {
      type: "RoleBindingCreated",
      data: {
        id: c.id,
        account_id: c.accountId,
        role_id: c.roleId,
        subject_type: c.subjectType,
        subject_id: c.subjectId,
        resource_type: c.resourceType,
        resource_id: c.resourceId,
        created_at: c.now.toISOString(),
      },
    },
  ];
}

/** Binding the same role again is a no-op. */
export function decideUpdateRoleBinding(
  c: { roleId: string; now: Date },
  state: RoleBindingState,
): RoleBindingEvent[] {
  if (c.roleId === state.roleId) return [];
  return [
    {
      type: "RoleBindingUpdated",
      data: { id: state.id, role_id: c.roleId, updated_at: c.now.toISOString() },
    },
  ];
}

export function decideDeleteRoleBinding(state: RoleBindingState): RoleBindingEvent[] {
  return [
    {
      type: "RoleBindingDeleted",
      data: { id: state.id, subject_type: state.subjectType, subject_id: state.subjectId },
    },
  ];
}
