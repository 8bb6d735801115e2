import { DomainError } from "@argus/platform";

export const TAG_NAME_MAX = 100;
export const TAG_DESCRIPTION_MAX = 1000;
export const TAG_COLORS = [
  "GRAY",
  "INDIGO",
  "BLUE",
  "CYAN",
  "TEAL",
  "PINE",
  "GREEN",
  "LIME",
  "OLIVE",
  "LEMON",
  "YELLOW",
  "ORANGE",
  "RED",
  "CORAL",
  "PINK",
  "PLUM",
  "PURPLE",
  "BROWN",
  "AUBURN",
] as const;

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

/** What a decision needs to know about the tag: whether it exists and where. */
export interface TagState {
  exists: boolean;
  spaceId: string;
}

export const initialTagState: TagState = { exists: false, spaceId: "" };

export interface CreateTag {
  type: "CreateTag";
  id: string;
  accountId: string;
  spaceId: string;
  name: string;
  description: string | null;
  color: string | null;
  now: Date;
}

/** `undefined` leaves a field as it is; `null` clears description or color. */
export interface UpdateTag {
  type: "UpdateTag";
  id: string;
  name: string | undefined;
  description: string | null | undefined;
  color: string | null | undefined;
  now: Date;
}

export interface DeleteTag {
  type: "DeleteTag";
  id: string;
  now: Date;
}

export type TagCommand = CreateTag | UpdateTag | DeleteTag;

/** Lengths count characters (code points), as JSON Schema's maxLength does. */
const length = (s: string): number => [...s].length;

const invalid = (detail: string) => new DomainError("invalid-request", detail);

/** Names are stored trimmed: the rules (non-empty, at most 100) apply to what is kept. */
function tagName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw invalid("name must not be empty or whitespace-only");
  if (length(name) > TAG_NAME_MAX) throw invalid(`name must be at most ${TAG_NAME_MAX} characters`);
  return name;
}

function description(d: string | null): string | null {
  if (d !== null && length(d) > TAG_DESCRIPTION_MAX)
    throw invalid(`description must be at most ${TAG_DESCRIPTION_MAX} characters`);
  return d;
}

function color(c: string | null): string | null {
  if (c !== null && !(TAG_COLORS as readonly string[]).includes(c))
    throw invalid(`color must be one of ${TAG_COLORS.join(", ")}`);
  return c;
}

/** Pure: the events a command produces, or the rule it breaks. */
export function decideTag(command: TagCommand, state: TagState): TagEvent[] {
  switch (command.type) {
    case "CreateTag": {
      if (state.exists) throw new DomainError("resource-conflict", "tag already exists");
      const at = command.now.toISOString();
      return [
        {
          type: "TagCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            space_id: command.spaceId,
            name: tagName(command.name),
            description: description(command.description),
            color: color(command.color),
            created_at: at,
            updated_at: at,
          },
        },
      ];
    }
    case "UpdateTag": {
      if (!state.exists) throw new DomainError("resource-not-found", "tag not found");
      const { name, description: d, color: c } = command;
      if (name === undefined && d === undefined && c === undefined)
        throw invalid("At least one field (name, description, color) must be provided");
      const data: TagUpdated["data"] = {
        id: command.id,
        space_id: state.spaceId,
        updated_at: command.now.toISOString(),
      };
      if (name !== undefined) data.name = tagName(name);
      if (d !== undefined) data.description = description(d);
      if (c !== undefined) data.color = color(c);
      return [{ type: "TagUpdated", data }];
    }
    case "DeleteTag": {
      if (!state.exists) throw new DomainError("resource-not-found", "tag not found");
      return [
        {
          type: "TagDeleted",
          data: { id: command.id, space_id: state.spaceId, deleted_at: command.now.toISOString() },
        },
      ];
    }
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String(never)}`);
    }
  }
}
