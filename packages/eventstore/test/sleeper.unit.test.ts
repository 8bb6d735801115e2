import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createSleeper } from "../src/relay/sleeper.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const settled = async (promise: Promise<void>) => {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
};

describe("createSleeper", () => {
  it("sleeps for the given time", async () => {
    const sleeper = createSleeper();
    const sleep = sleeper.sleep(1000, true);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(sleep)).toBe(true);
  });

  it("ends a wakeable sleep on wake, and skips the next one if woken before it", async () => {
    const sleeper = createSleeper();
    const sleep = sleeper.sleep(60_000, true);
    sleeper.wake();
    expect(await settled(sleep)).toBe(true);
    expect(await settled(sleeper.sleep(60_000, true))).toBe(true);
    sleeper.clearWake();
    expect(await settled(sleeper.sleep(60_000, true))).toBe(false);
  });

  it("ignores wakes during a sleep that is not wakeable, so standbys never spin", async () => {
    const sleeper = createSleeper();
    const sleep = sleeper.sleep(1000, false);
    for (let i = 0; i < 100; i++) sleeper.wake();
    expect(await settled(sleep)).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await settled(sleep)).toBe(true);
  });

  it("ends every sleep once closed", async () => {
    const sleeper = createSleeper();
    const sleep = sleeper.sleep(60_000, false);
    sleeper.close();
    expect(await settled(sleep)).toBe(true);
    expect(await settled(sleeper.sleep(60_000, false))).toBe(true);
  });
});
