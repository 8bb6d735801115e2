/**
 * The one source of "now" for a service's handlers and work loops. Injected through the
 * service's deps so tests can pin time; production uses `systemClock`.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that reads `at` until moved: for tests that pin time. */
export function fixedClock(at: Date): Clock & { set(to: Date): void; advance(ms: number): void } {
  let current = at.getTime();
  return {
    now: () => new Date(current),
    set: (to) => void (current = to.getTime()),
    advance: (ms) => void (current += ms),
  };
}
