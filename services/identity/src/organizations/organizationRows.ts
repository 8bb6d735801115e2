import type { Organization } from "@argus/proto/identity/v1";

/** The organizations table's row and its gRPC shape. */

export interface OrganizationRow {
  id: string;
  name: string;
  description: string;
  created_at: Date;
}

export const ORGANIZATION_COLUMNS = "id, name, description, created_at";

export const toOrganization = (r: OrganizationRow): Organization => ({
  id: r.id,
  name: r.name,
  description: r.description,
  createdAt: r.created_at.toISOString(),
});
