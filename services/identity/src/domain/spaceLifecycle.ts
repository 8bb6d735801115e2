import { DomainError } from "@argus/platform";
import { SPACE_DESCRIPTION_MAX, SPACE_NAME_MAX } from "./space.ts";
import { requireDescription, requireName } from "./rules.ts";

export interface SpaceRecord {
  id: string;
  accountId: string;
  organizationId: string;
  name: string;
  description: string;
  isPrivate: boolean;
}

export type SpaceLifecycleEvent =
  | {
      type: "SpaceUpdated";
      data: {
        id: string;
        name: string;
        description: string;
        is_private: boolean;
        updated_at: string;
      };
    }
  | {
      type: "SpaceDeleted";
      data: { id: string; account_id: string; organization_id: string; deleted_at: string };
    };

/** Pure. Changing nothing is a no-op; an empty body is 400. */
export function decideUpdateSpace(
  c: { name?: string; description?: string; isPrivate?: boolean; now: Date },
  s: SpaceRecord,
): SpaceLifecycleEvent[] {
  if (c.name === undefined && c.description === undefined && c.isPrivate === undefined)
    throw new DomainError(
      "invalid-request",
      "at least one of name, description, is_private is required",
    );
  if (c.name !== undefined) requireName(c.name, SPACE_NAME_MAX);
  if (c.description !== undefined) requireDescription(c.description, SPACE_DESCRIPTION_MAX);
  const next = {
    name: c.name ?? s.name,
    description: c.description ?? s.description,
    is_private: c.isPrivate ?? s.isPrivate,
  };
  if (next.name === s.name && next.description === s.description && next.is_private === s.isPrivate)
    return [];
  return [{ type: "SpaceUpdated", data: { id: s.id, ...next, updated_at: c.now.toISOString() } }];
}

/** Consumed by the services owning what the space holds (they delete it). */
export function decideDeleteSpace(c: { now: Date }, s: SpaceRecord): SpaceLifecycleEvent[] {
  return [
    {
      type: "SpaceDeleted",
      data: {
        id: s.id,
        account_id: s.accountId,
        organization_id: s.organizationId,
        deleted_at: c.now.toISOString(),
      },
    },
  ];
}
