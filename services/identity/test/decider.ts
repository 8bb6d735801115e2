import { fold, type Decider, type DomainEvent } from "@argus/eventstore";
import { DomainError } from "@argus/platform";

/** Given these events, when this command: the events the decider decides. */
export const givenOf =
  <S, C, E extends DomainEvent>(decider: Decider<S, C, E>) =>
  (history: readonly E[] = []) => ({
    state: fold(decider, history),
    when: (command: C): E[] => [...decider.decide(command, fold(decider, history))],
    /** The history after the command's events. */
    then: (command: C): E[] => [...history, ...decider.decide(command, fold(decider, history))],
  });

/** The problem type a call throws ("none" when it does not). */
export function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
}
