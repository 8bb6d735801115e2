import { holdsAnywhere, type CallContext } from "@argus/platform";
import type { BindingResourceType, SubjectType } from "@argus/contracts";
import type { Role, RoleBinding } from "@argus/proto/identity/v1";

export interface RoleRow {
  id: string;
  name: string;
  description: string;
  permissions: string[];
  is_predefined: boolean;
  created_at: Date;
  updated_at: Date;
}

export const ROLE_COLUMNS =
  "id, name, description, permissions, is_predefined, created_at, updated_at";

/** Spec endpoint 14: a role's permissions are shown only to callers holding ROLE_READ. */
export function toRole(r: RoleRow, ctx: CallContext): Role {
  const visible = holdsAnywhere(ctx.principal, "ROLE_READ");
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    permissions: visible ? r.permissions : [],
    permissionsVisible: visible,
    isPredefined: r.is_predefined,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export interface BindingRow {
  id: string;
  role_id: string;
  subject_type: SubjectType;
  subject_id: string;
  resource_type: BindingResourceType;
  resource_id: string;
  created_at: Date;
  updated_at: Date;
}

export const BINDING_COLUMNS =
  "id, role_id, subject_type, subject_id, resource_type, resource_id, created_at, updated_at";

export const toRoleBinding = (r: BindingRow): RoleBinding => ({
  id: r.id,
  roleId: r.role_id,
  subjectType: r.subject_type,
  subjectId: r.subject_id,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});
