/**
 * Identity's events as they are stored and published (`<root>.identity.<aggregate>.<Type>`):
 * the types its deciders produce, its projections apply, and other services consume.
 */

export interface SpaceCreated {
  type: "SpaceCreated";
  data: {
    id: string;
    account_id: string;
    organization_id: string;
    name: string;
    description: string;
    is_private: boolean;
    created_at: string;
  };
}

export interface SpaceUpdated {
  type: "SpaceUpdated";
  data: { id: string; name: string; description: string; is_private: boolean; updated_at: string };
}

/** Consumed by every service that holds things in a space: they delete them. */
export interface SpaceDeleted {
  type: "SpaceDeleted";
  data: { id: string; account_id: string; organization_id: string; deleted_at: string };
}

export type SpaceEvent = SpaceCreated | SpaceUpdated | SpaceDeleted;

/** Every event identity publishes. */
export type IdentityEvent = SpaceEvent;
