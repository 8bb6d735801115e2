import { describe, expect, it } from "vitest";
import { backoffDelay } from "../src/backoff.ts";

const opts = { baseMs: 100, maxMs: 1000 };

describe("backoffDelay", () => {
  it("doubles the ceiling per attempt up to the maximum", () => {
    const top = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, opts, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
  });

  it("is fully jittered between zero and the ceiling", () => {
    expect(backoffDelay(3, opts, () => 0)).toBe(0);
    expect(backoffDelay(3, opts, () => 0.5)).toBe(200);
    for (let i = 0; i < 1000; i++) {
      const delay = backoffDelay(4, opts);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(800);
    }
  });

  it("treats attempt 0 or less like the first", () => {
    expect(backoffDelay(0, opts, () => 0.5)).toBe(50);
    expect(backoffDelay(-3, opts, () => 0.5)).toBe(50);
  });
});
