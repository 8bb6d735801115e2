import { holdsAnywhere, type CallContext } from "@argus/platform";
import type { Role } from "@argus/proto/identity/v1";

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
