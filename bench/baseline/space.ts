import { decodeId, encodeId } from "@argus/platform";
import { prepared } from "./prepared.ts";
// GET /v2/spaces/:id's one query and answer, shared by the bare baselines.
export interface SpaceRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
}

/** The space of id `$1`, prepared (`prepared.ts`). */
export const selectSpace = prepared(
  "select_space",
  "select id, organization_id, name, description, is_private, created_at from identity.spaces where id = $1",
);

/**
 * The uuid of a public id of `type` (base64 of `Type:uuid`), or null; and back. The platform's
 * codec, which decodes without a Buffer: a bulk write's floor decodes 1000 of them.
 */
export const publicUuid: (type: string, id: string) => string | null = decodeId;
export const encodePublicId: (type: string, uuid: string) => string = encodeId;

/** The same JSON as the gateway's. */
export const spaceJson = (row: SpaceRow) => ({
  id: encodePublicId("Space", row.id),
  organization_id: encodePublicId("Organization", row.organization_id),
  name: row.name,
  description: row.description,
  created_at: row.created_at.toISOString(),
  is_private: row.is_private,
});
