import { DomainError } from "@argus/platform";

export const TAG_IDS_MAX = 100;

export interface TagsAttached {
  type: "TagsAttached";
  data: {
    resource_type: string;
    resource_id: string;
    space_id: string;
    /** Only the tags that were not attached before: re-attaching is not a change. */
    tag_ids: string[];
    attached_at: string;
  };
}

export interface TagsDetached {
  type: "TagsDetached";
  data: {
    resource_type: string;
    resource_id: string;
    space_id: string;
    tag_ids: string[];
    detached_at: string;
  };
}

export type TaggingEvent = TagsAttached | TagsDetached;

/** What a decision on one resource's tags needs: the resource, its tags, the tags named. */
export interface TaggingState {
  resourceType: string;
  resourceId: string;
  spaceId: string;
  /** Tags currently attached to the resource. */
  attached: ReadonlySet<string>;
  /** The space of every existing tag the command names (missing: no such tag). */
  tagSpaces: ReadonlyMap<string, string>;
}

export interface AttachTags {
  type: "AttachTags";
  tagIds: readonly string[];
  now: Date;
}

export interface DetachTags {
  type: "DetachTags";
  tagIds: readonly string[];
  now: Date;
}

export type TaggingCommand = AttachTags | DetachTags;

const unprocessable = (detail: string) => new DomainError("validation-error", detail);

function requireCount(tagIds: readonly string[]): void {
  if (tagIds.length === 0) throw unprocessable("tag_ids must contain at least 1 tag ID");
  if (tagIds.length > TAG_IDS_MAX)
    throw unprocessable(`tag_ids must contain at most ${TAG_IDS_MAX} tag IDs`);
}

/** Pure: the events a tagging command produces (none when nothing changes), or the rule it breaks. */
export function decideTagging(command: TaggingCommand, state: TaggingState): TaggingEvent[] {
  requireCount(command.tagIds);
  const unique = [...new Set(command.tagIds)];
  const on = {
    resource_type: state.resourceType,
    resource_id: state.resourceId,
    space_id: state.spaceId,
  };
  switch (command.type) {
    case "AttachTags": {
      for (const id of unique) {
        const space = state.tagSpaces.get(id);
        if (space === undefined) throw unprocessable("every tag in tag_ids must exist");
        if (space !== state.spaceId)
          throw unprocessable(
            `every tag in tag_ids must belong to the space of the ${state.resourceType}`,
          );
      }
      const added = unique.filter((id) => !state.attached.has(id));
      if (added.length === 0) return [];
      return [
        {
          type: "TagsAttached",
          data: { ...on, tag_ids: added, attached_at: command.now.toISOString() },
        },
      ];
    }
    case "DetachTags": {
      const removed = unique.filter((id) => state.attached.has(id));
      if (removed.length === 0) return [];
      return [
        {
          type: "TagsDetached",
          data: { ...on, tag_ids: removed, detached_at: command.now.toISOString() },
        },
      ];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}
