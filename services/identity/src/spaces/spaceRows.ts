import type { SpaceSettings } from "@argus/contracts";
import type { SpaceFacts } from "@argus/platform";
import type { Space } from "@argus/proto/identity/v1";

/** The spaces table's row, its gRPC shape and what authorization reads of it. */

export interface SpaceRow {
  id: string;
  account_id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
  /** Absent where a query does not read it (a space just created has none). */
  settings?: SpaceSettings;
}

export const SPACE_COLUMNS =
  "id, account_id, organization_id, name, description, is_private, created_at, settings";

/** What authorization reads of a space (platform authorization.ts). */
export const spaceFacts = (
  r: Pick<SpaceRow, "id" | "organization_id" | "is_private">,
): SpaceFacts => ({ id: r.id, organizationId: r.organization_id, isPrivate: r.is_private });

export const toSpace = (r: SpaceRow): Space => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  description: r.description,
  isPrivate: r.is_private,
  createdAt: r.created_at.toISOString(),
  settingsJson: JSON.stringify(r.settings ?? {}),
});
