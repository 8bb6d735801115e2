import { fold, type Decider, type DomainEvent } from "@argus/eventstore";
import { DomainError } from "@argus/platform";

/**
 * Given/when/then over a decider: `given(events).when(command)` is what it decides on the
 * state those events fold to; `history(...commands)` is every event of running them in turn.
 */
export function scenario<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  const given = (history: readonly E[]) => ({
    when: (command: C): readonly E[] => decider.decide(command, fold(decider, history)),
    state: (): S => fold(decider, history),
  });
  const history = (...commands: C[]): E[] =>
    commands.reduce<E[]>((events, c) => [...events, ...given(events).when(c)], []);
  return { given, history };
}

/** The problem type a decision throws ("none" when it decides). */
export function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
}

/** `problem`, with the detail: "type: detail", or "ok". */
export function problemDetail(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (e instanceof DomainError) return `${e.type}: ${e.message}`;
    throw e;
  }
}
