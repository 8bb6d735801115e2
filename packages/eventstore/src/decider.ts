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
}

/** The state after `events`, from the decider's initial state. */
export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, "initialState" | "evolve">,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState);
}
