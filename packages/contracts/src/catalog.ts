/**
 * The catalog's events as they are stored and published (`<root>.catalog.<aggregate>.<Type>`).
 */

export interface TagData {
  id: string;
  account_id: string;
  space_id: string;
  name: string;
  description: string | null;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface TagCreated {
  type: "TagCreated";
  data: TagData;
}

/** Carries only the fields that changed, plus updated_at; a null description/color clears it. */
export interface TagUpdated {
  type: "TagUpdated";
  data: {
    id: string;
    space_id: string;
    name?: string;
    description?: string | null;
    color?: string | null;
    updated_at: string;
  };
}

export interface TagDeleted {
  type: "TagDeleted";
  data: { id: string; space_id: string; deleted_at: string };
}

export type TagEvent = TagCreated | TagUpdated | TagDeleted;

/** Every event the catalog publishes. */
export type CatalogEvent = TagEvent;
