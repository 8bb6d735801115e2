import { LIMITS, type ResourceTagsEvent } from "@argus/contracts";
import { DomainError, unreachable } from "@argus/platform";

/**
 * What a decision on one resource's tags needs, read in the command's transaction: the
 * resource, the tags attached to it, and the space of every existing tag the command names.
 * The resource's tags are a set (attachments commute), so no fold of its stream is needed.
 */
export interface TaggingState {
  resourceType: string;
  resourceId: string;
  spaceId: string;
  attached: ReadonlySet<string>;
  /** Missing: no such tag. */
  tagSpaces: ReadonlyMap<string, string>;
}

export type TaggingCommand =
  | { type: "AttachTags"; tagIds: readonly string[]; now: Date }
  | { type: "DetachTags"; tagIds: readonly string[]; now: Date };

const unprocessable = (detail: string) => new DomainError("validation-error", detail);

function requireCount(tagIds: readonly string[]): void {
  if (tagIds.length === 0) throw unprocessable("tag_ids must contain at least 1 tag ID");
  if (tagIds.length > LIMITS.TAG_IDS_MAX)
    throw unprocessable(`tag_ids must contain at most ${LIMITS.TAG_IDS_MAX} tag IDs`);
}

/** Pure: the events a tagging command produces (none when nothing changes), or the rule it breaks. */
export function decideTagging(command: TaggingCommand, state: TaggingState): ResourceTagsEvent[] {
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
      const data = { ...on, tag_ids: added, attached_at: command.now.toISOString() };
      return [{ type: "TagsAttached", data }];
    }
    case "DetachTags": {
      const removed = unique.filter((id) => state.attached.has(id));
      if (removed.length === 0) return [];
      const data = { ...on, tag_ids: removed, detached_at: command.now.toISOString() };
      return [{ type: "TagsDetached", data }];
    }
    default:
      return unreachable(command);
  }
}
