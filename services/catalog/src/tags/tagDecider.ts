import { requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import type { Decider } from "@argus/eventstore";
import { LIMITS, textLength, type TagEvent, type TagUpdated } from "@argus/contracts";
import { invalid } from "../shared/catalogRules.ts";

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

export type TagState = Lifecycle<{ id: string; spaceId: string; updatedAt: number }>;

export type TagCommand =
  | {
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
  | {
      type: "UpdateTag";
      name: string | undefined;
      description: string | null | undefined;
      color: string | null | undefined;
      now: Date;
    }
  | { type: "DeleteTag"; now: Date };

/** Measured as sent (like the edge), stored trimmed; trimming only decides whether it is blank. */
function tagName(raw: string): string {
  const name = raw.trim();
  if (name === "") throw invalid("name must not be empty or whitespace-only");
  if (textLength(raw) > LIMITS.TAG_NAME_MAX)
    throw invalid(`name must be at most ${LIMITS.TAG_NAME_MAX} characters`);
  return name;
}

function description(d: string | null): string | null {
  if (d !== null && textLength(d) > LIMITS.TAG_DESCRIPTION_MAX)
    throw invalid(`description must be at most ${LIMITS.TAG_DESCRIPTION_MAX} characters`);
  return d;
}

function color(c: string | null): string | null {
  if (c !== null && !(TAG_COLORS as readonly string[]).includes(c))
    throw invalid(`color must be one of ${TAG_COLORS.join(", ")}`);
  return c;
}

function decide(command: TagCommand, state: TagState): TagEvent[] {
  switch (command.type) {
    case "CreateTag": {
      requireNew(state, "tag");
      const at = command.now.toISOString();
      const data = {
        id: command.id,
        account_id: command.accountId,
        space_id: command.spaceId,
        name: tagName(command.name),
        description: description(command.description),
        color: color(command.color),
        created_at: at,
        updated_at: at,
      };
      return [{ type: "TagCreated", data }];
    }
    case "UpdateTag": {
      requireLive(state, "tag");
      const { name, description: d, color: c } = command;
      if (name === undefined && d === undefined && c === undefined)
        throw invalid("At least one field (name, description, color) must be provided");
      // updated_at advances on every update, even within the millisecond of the last one.
      const at = Math.max(command.now.getTime(), state.updatedAt + 1);
      const data: TagUpdated["data"] = {
        id: state.id,
        space_id: state.spaceId,
        updated_at: new Date(at).toISOString(),
      };
      if (name !== undefined) data.name = tagName(name);
      if (d !== undefined) data.description = description(d);
      if (c !== undefined) data.color = color(c);
      return [{ type: "TagUpdated", data }];
    }
    case "DeleteTag": {
      requireLive(state, "tag");
      const data = { id: state.id, space_id: state.spaceId, deleted_at: command.now.toISOString() };
      return [{ type: "TagDeleted", data }];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: TagState, event: TagEvent): TagState {
  switch (event.type) {
    case "TagCreated":
      return {
        status: "live",
        id: event.data.id,
        spaceId: event.data.space_id,
        updatedAt: Date.parse(event.data.updated_at),
      };
    case "TagUpdated":
      if (state.status !== "live") return state;
      return { ...state, updatedAt: Date.parse(event.data.updated_at) };
    case "TagDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** A tag: created once in a space, updated while live, deleted once. */
export const tagDecider: Decider<TagState, TagCommand, TagEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
