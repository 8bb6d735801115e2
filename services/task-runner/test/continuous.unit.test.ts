import { describe, expect, it } from "vitest";
import { fixedClock } from "@argus/platform";
import { nextWindowEnd } from "../src/worker/continuousScheduler.ts";

describe("a continuous task's next window", () => {
  const clock = fixedClock(new Date("2026-03-04T05:06:07.089Z"));
  const lagMs = 10_000;
  const at = (msBeforeNow: number) => new Date(clock.now().getTime() - msBeforeNow);

  it("ends the lag before the clock's now, once that is past the last window's end", () => {
    expect(nextWindowEnd(at(60_000), clock.now(), lagMs)).toEqual(at(lagMs));
    expect(nextWindowEnd(at(lagMs + 1), clock.now(), lagMs)).toEqual(at(lagMs));
  });

  it("is none while the last window ends at or after that point; the clock moving on opens it", () => {
    expect(nextWindowEnd(at(lagMs), clock.now(), lagMs)).toBeUndefined();
    expect(nextWindowEnd(at(0), clock.now(), lagMs)).toBeUndefined();
    const last = at(lagMs);
    clock.advance(1);
    expect(nextWindowEnd(last, clock.now(), lagMs)).toEqual(new Date(last.getTime() + 1));
  });
});
