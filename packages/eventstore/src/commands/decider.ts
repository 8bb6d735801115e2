import { createHash } from "node:crypto";

/** An event as a decider produces it; the store adds ids, positions, time and metadata. */
export interface DomainEvent {
  type: string;
  data: object;
}

/**
 * One aggregate's rules, pure: `evolve` folds its stream into the state a decision needs,
 * `decide` turns a command into events (or throws the DomainError of the rule it breaks).
 */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): readonly Event[];
  /**
   * For a stream that grows without bound (a prompt's versions, a queue's records): the command
   * handler keeps the state as a snapshot every `every` events and folds only what follows it,
   * so a command's cost does not grow with the stream. The state must then be plain JSON (no
   * Set, Map or Date), and `tag` must change whenever `evolve` or the state's shape does: a
   * snapshot under another tag is not read. (`snapshotTag` also adds a digest of `evolve`'s
   * own source, so an edit of it is caught even when the tag was not changed.)
   */
  snapshots?: { tag: string; every: number };
}

const tags = new WeakMap<object, string>();

/** The tag a decider's snapshots are kept under: its own, with a digest of `evolve`'s source. */
export function snapshotTag<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, "evolve" | "snapshots">,
): string | undefined {
  if (!decider.snapshots) return undefined;
  let tag = tags.get(decider);
  if (!tag) {
    const digest = createHash("sha256").update(decider.evolve.toString()).digest("hex");
    tags.set(decider, (tag = `${decider.snapshots.tag}#${digest.slice(0, 12)}`));
  }
  return tag;
}

/** The state after `events`, from the decider's initial state (or from `from`, a snapshot's). */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  events: readonly Event[],
  from: State = decider.initialState,
): State {
  return events.reduce(decider.evolve, from);
}
