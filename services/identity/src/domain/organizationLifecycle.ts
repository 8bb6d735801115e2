import { DomainError } from "@argus/platform";
import { ORGANIZATION_DESCRIPTION_MAX, ORGANIZATION_NAME_MAX } from "./organization.ts";
import { requireDescription, requireName } from "./rules.ts";

export interface OrganizationRecord {
  id: string;
  name: string;
  description: string;
}

export type OrganizationLifecycleEvent =
  | {
      type: "OrganizationUpdated";
      data: { id: string; name: string; description: string; updated_at: string };
    }
  | { type: "OrganizationDeleted"; data: { id: string; deleted_at: string } };

export function decideUpdateOrganization(
  c: { name?: string; description?: string; now: Date },
  o: OrganizationRecord,
): OrganizationLifecycleEvent[] {
  if (c.name === undefined && c.description === undefined)
    throw new DomainError("invalid-request", "at least one of name, description is required");
  if (c.name !== undefined) requireName(c.name, ORGANIZATION_NAME_MAX);
  if (c.description !== undefined) requireDescription(c.description, ORGANIZATION_DESCRIPTION_MAX);
  const name = c.name ?? o.name;
  const description = c.description ?? o.description;
  if (name === o.name && description === o.description) return [];
  return [
    {
      type: "OrganizationUpdated",
      data: { id: o.id, name, description, updated_at: c.now.toISOString() },
    },
  ];
}

/** The organization's own event; its spaces' SpaceDeleted events are appended alongside. */
export function decideDeleteOrganization(
  c: { now: Date },
  o: OrganizationRecord,
): OrganizationLifecycleEvent[] {
  return [{ type: "OrganizationDeleted", data: { id: o.id, deleted_at: c.now.toISOString() } }];
}
