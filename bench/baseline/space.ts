// GET /v2/spaces/:id's one query and answer, shared by the bare baselines.
export interface SpaceRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
}

export const SELECT_SPACE =
  "select id, organization_id, name, description, is_private, created_at from identity.spaces where id = $1";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function spaceUuid(id: string): string | null {
  const text = Buffer.from(id, "base64").toString("utf8");
  const uuid = text.startsWith("Space:") ? text.slice("Space:".length) : "";
  return UUID.test(uuid) ? uuid : null;
}

/** The same JSON as the gateway's. */
export const spaceJson = (row: SpaceRow) => ({
  id: Buffer.from(`Space:${row.id}`, "utf8").toString("base64"),
  organization_id: Buffer.from(`Organization:${row.organization_id}`, "utf8").toString("base64"),
  name: row.name,
  description: row.description,
  created_at: row.created_at.toISOString(),
  is_private: row.is_private,
});
