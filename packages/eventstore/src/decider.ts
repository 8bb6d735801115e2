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
   * snapshot under another tag is not read.
   */
  snapshots?: { tag: string; every: number };
}

/** The state after `events`, from the decider's initial state (or from `from`, a snapshot's). */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  events: readonly Event[],
  from: State = decider.initialState,
): State {
  return events.reduce(decider.evolve, from);
}
