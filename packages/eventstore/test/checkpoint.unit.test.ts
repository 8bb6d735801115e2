import { describe, expect, it } from "vitest";
import { checkpointOf, compareCheckpoints, initialCheckpoint } from "../src/streams/checkpoint.ts";

describe("compareCheckpoints", () => {
  it("orders by transaction id before position", () => {
    // The later transaction took the earlier position: it still sorts after.
    expect(
      compareCheckpoints(
        { transactionId: 10n, globalPosition: 9n },
        { transactionId: 11n, globalPosition: 1n },
      ),
    ).toBe(-1);
    expect(
      compareCheckpoints(
        { transactionId: 11n, globalPosition: 1n },
        { transactionId: 10n, globalPosition: 9n },
      ),
    ).toBe(1);
  });

  it("orders by position within one transaction", () => {
    expect(
      compareCheckpoints(
        { transactionId: 5n, globalPosition: 1n },
        { transactionId: 5n, globalPosition: 2n },
      ),
    ).toBe(-1);
    expect(
      compareCheckpoints(
        { transactionId: 5n, globalPosition: 2n },
        { transactionId: 5n, globalPosition: 2n },
      ),
    ).toBe(0);
  });

  it("stays exact beyond 2^53", () => {
    const big = 2n ** 60n;
    expect(
      compareCheckpoints(
        { transactionId: big, globalPosition: big },
        { transactionId: big, globalPosition: big + 1n },
      ),
    ).toBe(-1);
  });

  it("starts before every real position", () => {
    expect(compareCheckpoints(initialCheckpoint, { transactionId: 1n, globalPosition: 1n })).toBe(
      -1,
    );
  });

  it("takes only the position of an event", () => {
    expect(checkpointOf({ transactionId: 3n, globalPosition: 4n, ...{ extra: true } })).toEqual({
      transactionId: 3n,
      globalPosition: 4n,
    });
  });
});
