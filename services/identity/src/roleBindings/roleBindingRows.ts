import type { BindingResourceType, SubjectType } from "@argus/contracts";
import type { RoleBinding } from "@argus/proto/identity/v1";

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
