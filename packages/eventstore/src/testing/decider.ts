import { isDeepStrictEqual } from "node:util";
import { DomainError } from "@argus/platform";
import { fold, type Decider, type DomainEvent } from "../commands/decider.ts";

/**
 * The state `history` folds to; for a decider with snapshots, as a snapshot of it would read
 * back (JSON), failing the test when that is not the same state.
 */
function stateAfter<S, C, E extends DomainEvent>(
  decider: Decider<S, C, E>,
  history: readonly E[],
): S {
  const state = fold(decider, history);
  if (!decider.snapshots) return state;
  const read = JSON.parse(JSON.stringify(state)) as S;
  if (!isDeepStrictEqual(read, state))
    throw new Error(`a ${decider.snapshots.tag} snapshot does not read back as the state it kept`);
  return read;
}

/**
 * Given/when/then over a decider, for unit tests: `given(events).when(command)` is what it
 * decides on the state those events fold to, `.then(command)` the history after it, and
 * `history(...commands)` every event of running the commands in turn. A decider with snapshots
 * decides on its state as read back from one.
 */
export function scenario<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  const given = (history: readonly E[] = []) => ({
    state: stateAfter(decider, history),
    when: (command: C): E[] => [...decider.decide(command, stateAfter(decider, history))],
    then: (command: C): E[] => [
      ...history,
      ...decider.decide(command, stateAfter(decider, history)),
    ],
  });
  const history = (...commands: C[]): E[] =>
    commands.reduce<E[]>((events, c) => [...events, ...given(events).when(c)], []);
  return { given, history };
}

/** `scenario(decider).given`, for tests that need only that. */
export const givenOf = <S, C, E extends DomainEvent>(decider: Decider<S, C, E>) =>
  scenario(decider).given;

/** The problem type a call throws ("none" when it decides). */
export function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
}

/** `problem` with the detail: "type: detail", or "ok". */
export function problemDetail(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (e instanceof DomainError) return `${e.type}: ${e.message}`;
    throw e;
  }
}
